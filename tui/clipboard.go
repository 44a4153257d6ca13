package tui

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/session"
)

// errNoClipboardTool: nothing here reads an image from the clipboard.
var errNoClipboardTool = errors.New("no tool to read an image from the clipboard: wl-paste (Wayland), xclip (X11) or osascript (macOS)")

// errNoImage: the clipboard holds no image.
var errNoImage = errors.New("no image on the clipboard")

// clipboardMsg is what ctrl+v found: an image, or (err) why none; key is
// the press, handed to the input when there was no image to attach.
type clipboardMsg struct {
	part session.FilePart
	err  error
	key  tea.KeyPressMsg
}

// clipboardWait bounds reading the clipboard.
const clipboardWait = 5 * time.Second

// pasteImage reads an image off the clipboard, with the tool the
// desktop has (found on PATH): Wayland's wl-paste, X11's xclip, macOS's
// osascript.
func pasteImage(getenv func(string) string, key tea.KeyPressMsg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), clipboardWait)
		defer cancel()
		data, typ, err := clipboardImage(ctx, getenv)
		if err != nil {
			return clipboardMsg{err: err, key: key}
		}
		part, err := session.AttachBytes("clipboard"+extensionOf(typ), typ, data)
		return clipboardMsg{part: part, err: err, key: key}
	}
}

func clipboardImage(ctx context.Context, getenv func(string) string) ([]byte, string, error) {
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Env = os.Environ()
		err := cmd.Run()
		return out.Bytes(), err
	}
	look := func(name string) bool { _, err := exec.LookPath(name); return err == nil }
	switch {
	case getenv("WAYLAND_DISPLAY") != "" && look("wl-paste"):
		types, err := run("wl-paste", "--list-types")
		if err != nil {
			return nil, "", errNoImage
		}
		typ := imageType(string(types))
		if typ == "" {
			return nil, "", errNoImage
		}
		data, err := run("wl-paste", "--no-newline", "--type", typ)
		return data, typ, err
	case getenv("DISPLAY") != "" && look("xclip"):
		types, err := run("xclip", "-selection", "clipboard", "-t", "TARGETS", "-o")
		if err != nil {
			return nil, "", errNoImage
		}
		typ := imageType(string(types))
		if typ == "" {
			return nil, "", errNoImage
		}
		data, err := run("xclip", "-selection", "clipboard", "-t", typ, "-o")
		return data, typ, err
	case look("osascript"):
		out, err := run("osascript", "-e", "the clipboard as «class PNGf»")
		s := strings.TrimSpace(string(out))
		if err != nil || !strings.HasPrefix(s, "«data PNGf") {
			return nil, "", errNoImage
		}
		data, err := hex.DecodeString(strings.TrimSuffix(strings.TrimPrefix(s, "«data PNGf"), "»"))
		return data, "image/png", err
	}
	return nil, "", errNoClipboardTool
}

// imageType is the image type a clipboard offers, PNG first.
func imageType(list string) string {
	var found string
	for _, t := range strings.Fields(list) {
		switch {
		case t == "image/png":
			return t
		case found == "" && (t == "image/jpeg" || t == "image/gif" || t == "image/webp"):
			found = t
		}
	}
	return found
}

func extensionOf(typ string) string {
	switch typ {
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	}
	return ".png"
}

// pastedImagePath is the image file a paste names, as terminals paste a
// dropped file (quoted, file://, spaces escaped); "" when it is not one.
func pastedImagePath(text string) string {
	p := strings.TrimSpace(text)
	if p == "" || strings.ContainsAny(p, "\n\r") || len(p) > 4096 {
		return ""
	}
	if len(p) >= 2 && (p[0] == '\'' && p[len(p)-1] == '\'' || p[0] == '"' && p[len(p)-1] == '"') {
		p = p[1 : len(p)-1]
	}
	p = strings.TrimPrefix(p, "file://")
	p = strings.ReplaceAll(p, `\ `, " ")
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") {
		return ""
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
	default:
		return ""
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

// getenv is Options.Getenv, or the process's.
func (m *Model) getenv() func(string) string {
	if m.opts.Getenv != nil {
		return m.opts.Getenv
	}
	return os.Getenv
}
