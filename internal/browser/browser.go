// Package browser opens an address in the person's browser: $BROWSER when
// it is set, else the desktop's opener. It only starts the program; it
// never waits for it, and a caller prints the address either way.
//
// An address that carries a secret (a sign-in link, an authorization
// request) never goes into the browser's argv, which every local user can
// read in /proc: OpenPrivately writes a page only the person can read
// that forwards to it, and hands the browser that file (as Jupyter does).
package browser

import (
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Open starts the browser on u; getenv reads $BROWSER.
func Open(getenv func(string) string, u string) error {
	if b := getenv("BROWSER"); b != "" {
		return exec.Command(b, u).Start()
	}
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	return exec.Command(opener, u).Start()
}

// OpenPrivately starts the browser on a file that forwards to u: the file
// is the person's alone (0600 in a 0700 folder under dir, or the
// temporary directory when dir is ""). done removes it; call it when the
// address is no longer needed (the browser may read it late).
func OpenPrivately(getenv func(string) string, dir, u string) (done func(), err error) {
	p, done, err := Forwarder(dir, u)
	if err != nil {
		return func() {}, err
	}
	if err := Open(getenv, (&url.URL{Scheme: "file", Path: p}).String()); err != nil {
		done()
		return func() {}, err
	}
	return done, nil
}

// Forwarder writes the page that forwards to u and says where it is.
func Forwarder(dir, u string) (path string, done func(), err error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, err
		}
	}
	d, err := os.MkdirTemp(dir, "chat-open-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(d) }
	// The folder is 0700 from MkdirTemp; the file is made 0600 with
	// O_EXCL, so nothing another user prepared is written through.
	p := filepath.Join(d, "open.html")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		done()
		return "", nil, err
	}
	a := html.EscapeString(u)
	_, err = fmt.Fprintf(f, `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=%s"><title>chat</title></head>
<body><p>Opening <a href="%s">chat</a>…</p></body></html>
`, a, a)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		done()
		return "", nil, err
	}
	return p, done, nil
}
