package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestAttach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	files := map[string][]byte{
		"notes.md": []byte("# Notes\n"), "data.csv": []byte("a,b\n1,2\n"), "main.go": []byte("package main\n"),
		"pic.png": png, "fake.png": []byte("not an image at all"), "renamed.txt": png,
		"doc.pdf": []byte("%PDF-1.4\n"), "blob.bin": {0, 1, 2, 3}, "big.txt": []byte(strings.Repeat("x", MaxTextBytes+1)),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, mediaType, err string }{
		{"notes.md", "text/markdown", ""},
		{"data.csv", "text/csv", ""},
		{"main.go", "text/plain", ""},
		{"pic.png", "image/png", ""},
		{"renamed.txt", "image/png", ""},
		{"fake.png", "", "the content is text/plain"},
		{"doc.pdf", "", "PDFs are not sent"},
		{"blob.bin", "", "binary file"},
		{"big.txt", "", "over the 2.0 MiB limit"},
		{"missing.txt", "", "no such file"},
	}
	for _, tt := range tests {
		f, err := Attach(filepath.Join(dir, tt.name))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || f.MediaType != tt.mediaType || f.Filename != tt.name {
			t.Errorf("%s: %+v %v", tt.name, f, err)
		}
	}
}

// TestAttachRefusesSpecialFiles: /dev/zero and a FIFO are refused before
// anything is read (the FIFO would block, /dev/zero never ends).
func TestAttachRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo} {
		if _, err := Attach(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
