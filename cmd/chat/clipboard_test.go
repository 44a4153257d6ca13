package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// tinyPNG is a 1×1 PNG.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestTUIPastesAnImage: Ctrl+V with an image on the clipboard (a wl-paste
// stand-in on PATH, as on Wayland) attaches it, and a pasted path of an
// image file attaches that file: both reach the model as image parts.
func TestTUIPastesAnImage(t *testing.T) {
	t.Parallel()
	bin, files := t.TempDir(), t.TempDir()
	clip := filepath.Join(files, "clip.png")
	if err := os.WriteFile(clip, tinyPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in\n*--list-types*) printf 'text/plain\\nimage/png\\n' ;;\n*image/png*) cat " + clip + " ;;\n*) exit 1 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "wl-paste"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dropped := filepath.Join(files, "my shot.png")
	if err := os.WriteFile(dropped, tinyPNG(t), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "a black pixel, twice"})
	tm := startTermOpts(t, srv, termOpts{env: "WAYLAND_DISPLAY=wayland-test PATH=" + bin + ":" + os.Getenv("PATH")})
	tm.keys("C-v")
	tm.waitFor("attached the clipboard's image", time.Minute)
	tm.paste(strings.ReplaceAll(dropped, " ", `\ `))
	tm.waitFor("my shot.png", time.Minute)
	tm.ask("what are these?")
	tm.waitFor("a black pixel, twice", time.Minute)
	msgs := srv.Requests()[0].Messages
	last := string(msgs[len(msgs)-1].Content)
	if n := strings.Count(last, "data:image/png;base64,"); n != 2 || !strings.Contains(last, "what are these?") {
		t.Fatalf("%d images in the message: %.400s", n, last)
	}
}
