package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/chatrepl/chat/internal/regular"
)

// Size limits of attachments.
const (
	MaxImageBytes = 20 << 20 // what the large providers accept per image
	MaxTextBytes  = 2 << 20  // a text file inlined into the prompt
)

var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// Attach reads a file for a user message. Images (png, jpeg, gif, webp)
// are sent as data URLs; text (txt, csv, html, md, source code …) is
// inlined. The type comes from the extension and is checked against the
// content, so a renamed binary is not sent as text. PDFs and other binary
// files are refused with a message saying why.
func Attach(path string) (FilePart, error) {
	f, err := regular.Open(path)
	var special *regular.NotRegularError
	switch {
	case errors.Is(err, regular.ErrDir):
		return FilePart{}, fmt.Errorf("attach %s: it is a directory", path)
	case errors.As(err, &special):
		return FilePart{}, fmt.Errorf("attach %s: not a regular file (%s); only files can be attached", path, regular.Kind(special.Mode))
	case err != nil:
		return FilePart{}, fmt.Errorf("attach %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return FilePart{}, fmt.Errorf("attach %s: %w", path, err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	limit := int64(MaxTextBytes)
	if _, img := imageTypes[ext]; img {
		limit = MaxImageBytes
	}
	if st.Size() > limit {
		return FilePart{}, fmt.Errorf("attach %s: %s is over the %s limit for this kind of file", path, SizeText(st.Size()), SizeText(limit))
	}
	// Read at most the limit, whatever the size said: the file may grow.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return FilePart{}, fmt.Errorf("attach %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return FilePart{}, fmt.Errorf("attach %s: over the %s limit for this kind of file", path, SizeText(limit))
	}
	sniffed := http.DetectContentType(data)
	name := filepath.Base(path)
	if want, img := imageTypes[ext]; img {
		if sniffed != want {
			return FilePart{}, fmt.Errorf("attach %s: the name says %s but the content is %s", path, want, sniffed)
		}
		return FilePart{MediaType: want, Filename: name, Data: data}, nil
	}
	for _, want := range imageTypes {
		if sniffed == want { // an image under another name
			return FilePart{MediaType: want, Filename: name, Data: data}, nil
		}
	}
	switch {
	case ext == ".pdf" || sniffed == "application/pdf":
		return FilePart{}, fmt.Errorf("attach %s: PDFs are not sent (OpenAI-compatible chat endpoints do not take them); extract the text first, e.g. pdftotext", path)
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		return FilePart{}, fmt.Errorf("attach %s: a binary file (%s); only images and text can be attached", path, sniffed)
	}
	mt := "text/plain"
	switch ext {
	case ".csv":
		mt = "text/csv"
	case ".html", ".htm":
		mt = "text/html"
	case ".md", ".markdown":
		mt = "text/markdown"
	}
	return FilePart{MediaType: mt, Filename: name, Data: data}, nil
}

// SizeText is a size as the attachment errors say it: "3.2 MiB", "12 KiB".
func SizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// AttachBytes is an image that comes as bytes (the clipboard's), checked
// as Attach checks a file: its content must be the image type it says.
func AttachBytes(name, mediaType string, data []byte) (FilePart, error) {
	if len(data) == 0 {
		return FilePart{}, fmt.Errorf("attach %s: empty", name)
	}
	if len(data) > MaxImageBytes {
		return FilePart{}, fmt.Errorf("attach %s: %s is over the %s limit for an image", name, SizeText(int64(len(data))), SizeText(MaxImageBytes))
	}
	if got := http.DetectContentType(data); got != mediaType {
		return FilePart{}, fmt.Errorf("attach %s: said to be %s, but it is %s", name, mediaType, got)
	}
	return FilePart{MediaType: mediaType, Filename: name, Data: data}, nil
}
