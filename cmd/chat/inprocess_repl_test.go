package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// repl runs the REPL in-process on a terminal made of pipes: keys is
// what the person types. It returns once the program ended (or fails
// after a deadline) with what went to stderr.
func (w *world) repl(keys func(type_ func(string)), args ...string) string {
	w.t.Helper()
	d, _, errOut := w.deps()
	d.stdinIsTTY = func() bool { return true }
	in, typed := io.Pipe()
	screen := &lockedBuffer{}
	d.termIn, d.termOut = in, screen
	done := make(chan error, 1)
	go func() {
		cmd := newRootCmd(d, nil)
		cmd.SetArgs(args)
		done <- cmd.Execute()
	}()
	keys(func(s string) { _, _ = typed.Write([]byte(s)) })
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			w.t.Fatalf("the REPL: %v\n%s", err, errOut)
		}
	case <-time.After(20 * loadAllowance * time.Second):
		w.t.Fatalf("the REPL did not end\n%s\nscreen: %q", errOut, tail(screen.String(), 2000))
	}
	_ = typed.Close()
	return errOut.String()
}

// TestREPLInProcess: the REPL's wiring, run in-process: a question typed
// is answered through the run, the session is saved, and quitting says
// how to resume it; a second REPL continues it.
func TestREPLInProcess(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	w := newWorld(t, srv)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n")
	st := session.Store{Dir: session.DefaultDir(func(k string) string { return w.env[k] })}
	answered := func() bool {
		all, _ := st.List()
		return len(all) == 1 && all[0].Messages >= 3
	}
	said := w.repl(func(type_ func(string)) {
		type_("hello there")
		time.Sleep(100 * time.Millisecond) // a person pauses before Enter
		type_("\r")
		for deadline := time.Now().Add(30 * loadAllowance * time.Second); !answered(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("the question was not answered and saved")
				break
			}
		}
		type_("/quit")
		time.Sleep(100 * time.Millisecond)
		type_("\r")
	})
	if !strings.Contains(said, "session saved · chat --resume") {
		t.Fatalf("on quitting: %q", said)
	}
	said = w.repl(func(type_ func(string)) {
		type_("/quit")
		time.Sleep(100 * time.Millisecond)
		type_("\r")
	}, "--continue")
	if all, _ := st.List(); len(all) != 1 {
		t.Fatalf("continuing made a new session: %d sessions (%s)", len(all), said)
	}
}

// lockedBuffer is a terminal's output a test can read while it is drawn.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
