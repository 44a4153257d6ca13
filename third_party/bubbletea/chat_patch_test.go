//go:build linux

package tea

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// frameModel shows the keys typed so far.
type frameModel struct{ typed string }

func (m *frameModel) Init() Cmd { return nil }

func (m *frameModel) Update(msg Msg) (Model, Cmd) {
	if k, ok := msg.(KeyPressMsg); ok {
		m.typed += k.Text
	}
	return m, nil
}

func (m *frameModel) View() View { return NewView("frame:" + m.typed + ";") }

// TestFirstFrameAndKeysDrawnAtOnce checks chat's patch: on a terminal the
// first frame and the frame after a key are drawn without waiting for the
// renderer's tick, here a second away (upstream draws both at the tick).
func TestFirstFrameAndKeysDrawnAtOnce(t *testing.T) {
	terminal, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer terminal.Close()
	if err := unix.IoctlSetPointerInt(int(terminal.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(terminal.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	_ = unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 40, Row: 10})

	p := NewProgram(&frameModel{}, WithOutput(tty), WithInput(&bytes.Buffer{}), WithFPS(1))
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		<-done
	}()

	// The tick is a second away: a frame within half of it was drawn at once.
	var out []byte
	buf := make([]byte, 4096)
	waitFor := func(want string) {
		t.Helper()
		_ = terminal.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		for !bytes.Contains(out, []byte(want)) {
			n, err := terminal.Read(buf)
			if err != nil {
				t.Fatalf("%q not drawn before the tick (%v): %q", want, err, out)
			}
			out = append(out, buf[:n]...)
		}
	}
	waitFor("frame:;")
	time.Sleep(1100 * time.Millisecond) // past the first tick: a key is not drawn by it
	out = nil
	p.Send(KeyPressMsg{Code: 'x', Text: "x"})
	waitFor("x;")
}

// TestInsertAboveFitsAboveTheFrame checks chat's patch: lines printed above
// a tall frame go in groups that fit in the rows above it, so the cursor
// never has to go further up than the top of the screen (upstream moved
// up the frame's height plus every line, past the top, after scrolling the
// frame's own top rows into the scrollback).
func TestInsertAboveFitsAboveTheFrame(t *testing.T) {
	var out bytes.Buffer
	const height = 10
	r := newCursedRenderer(&out, []string{"TERM=xterm-256color"}, 40, height)
	r.start()
	r.render(NewView(strings.TrimSuffix(strings.Repeat("frame row\n", 8), "\n")))
	if err := r.flush(false); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := r.insertAbove("one\ntwo\nthree\nfour\nfive"); err != nil {
		t.Fatal(err)
	}
	written := out.String()
	for _, word := range []string{"one", "two", "three", "four", "five"} {
		if !strings.Contains(written, word) {
			t.Fatalf("%q was not written: %q", word, written)
		}
	}
	ups := regexp.MustCompile(`\x1b\[(\d*)A`).FindAllStringSubmatch(written, -1)
	if len(ups) == 0 {
		t.Fatalf("no cursor up in %q", written)
	}
	for _, up := range ups {
		if n, _ := strconv.Atoi(up[1]); n > height-1 {
			t.Fatalf("the cursor moved up %d rows on a screen of %d: %q", n, height, written)
		}
	}
}

// countingRenderer records how often the ticker flushed and the last view
// a flush drew.
type countingRenderer struct {
	nilRenderer
	mu            sync.Mutex
	flushes       int
	view, flushed string
}

func (r *countingRenderer) render(v View) {
	r.mu.Lock()
	r.view = v.Content
	r.mu.Unlock()
}

func (r *countingRenderer) flush(bool) error {
	r.mu.Lock()
	r.flushes++
	r.flushed = r.view
	r.mu.Unlock()
	return nil
}

func (r *countingRenderer) state() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushes, r.flushed
}

// TestIdleRendererStopsTicking checks chat's patch: once everything is
// drawn the renderer stops waking up (upstream flushes 120 times a second
// here, changed or not), and a message that changes the view wakes it.
func TestIdleRendererStopsTicking(t *testing.T) {
	r := &countingRenderer{}
	p := NewProgram(&frameModel{}, WithOutput(&bytes.Buffer{}), WithInput(&bytes.Buffer{}), WithFPS(120))
	p.renderer = r
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		<-done
	}()

	// Quiet means no flush for 25 ticks in a row; upstream never is.
	quiet := false
	for deadline := time.Now().Add(5 * time.Second); !quiet && time.Now().Before(deadline); {
		before, _ := r.state()
		time.Sleep(25 * time.Second / 120)
		after, _ := r.state()
		quiet = after == before
	}
	if !quiet {
		n, _ := r.state()
		t.Fatalf("the renderer kept flushing an unchanged view (%d flushes)", n)
	}

	p.Send(KeyPressMsg{Code: 'x', Text: "x"})
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, drawn := r.state(); drawn == "frame:x;" {
			break
		}
		if time.Now().After(deadline) {
			_, drawn := r.state()
			t.Fatalf("a key did not wake the renderer: last drawn %q", drawn)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWokenRendererDrawsAtOnce checks chat's patch: the first change after
// the renderer stopped ticking is drawn when it happens, not a tick later
// (here a second: upstream's ticker, never stopped, would draw it at its
// next tick, up to a second away).
func TestWokenRendererDrawsAtOnce(t *testing.T) {
	r := &countingRenderer{}
	p := NewProgram(&frameModel{}, WithOutput(&bytes.Buffer{}), WithInput(&bytes.Buffer{}), WithFPS(1))
	p.renderer = r
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		<-done
	}()

	// Stopped: no flush for more than a tick.
	for quiet, deadline := false, time.Now().Add(20*time.Second); !quiet; {
		if time.Now().After(deadline) {
			t.Fatal("the renderer never stopped ticking")
		}
		before, _ := r.state()
		time.Sleep(1200 * time.Millisecond)
		after, _ := r.state()
		quiet = after == before
	}
	sent := time.Now()
	p.Send(KeyPressMsg{Code: 'x', Text: "x"})
	for {
		if _, drawn := r.state(); drawn == "frame:x;" {
			break
		}
		if time.Since(sent) > 500*time.Millisecond {
			t.Fatal("the first change after the renderer stopped waited for a tick")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
