package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// tmuxControl is a tmux control-mode client (tmux -C) attached to a
// session: commands go in on one connection and tmux tells when a pane
// writes, so the time from a key to the frame that shows it is measured
// without starting a process in between. Polling capture-pane did: each
// poll starts a tmux client (4–58 ms on a 2-core VM as its load came and
// went), which was most of what that figure measured.
type tmuxControl struct {
	in     io.WriteCloser
	events chan controlEvent
	// expect is what each command sent and not yet answered waits for,
	// in order (tmux answers in order).
	expect []bool // true: a capture whose answer is read
}

// controlEvent is a pane's output (when it arrived) or the answer to a
// command (what it printed).
type controlEvent struct {
	output bool
	at     time.Time
	answer string
}

// attachTmuxControl attaches a control client to session on the tmux
// server at sock; it detaches when the benchmark ends.
func attachTmuxControl(b testing.TB, sock, session string) *tmuxControl {
	b.Helper()
	cmd := exec.Command("tmux", "-L", sock, "-C", "attach", "-t", session)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &tmuxControl{in: in, events: make(chan controlEvent, 1<<16)}
	// The attach itself is answered first.
	c.expect = append(c.expect, false)
	go c.read(out)
	b.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return c
}

// read turns the client's lines into events: %output lines, and the lines
// between %begin and %end (or %error) as one answer.
func (c *tmuxControl) read(out io.Reader) {
	defer close(c.events)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	var answer []string
	inAnswer := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inAnswer && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			c.events <- controlEvent{answer: strings.Join(answer, "\n")}
			answer, inAnswer = nil, false
		case inAnswer:
			answer = append(answer, line)
		case strings.HasPrefix(line, "%begin "):
			inAnswer = true
		case strings.HasPrefix(line, "%output "):
			c.events <- controlEvent{output: true, at: time.Now()}
		}
	}
}

// command sends a tmux command; capture says its answer is wanted.
func (c *tmuxControl) command(line string, capture bool) error {
	c.expect = append(c.expect, capture)
	_, err := fmt.Fprintln(c.in, line)
	return err
}

// next is the next event; for an answer, whether it was a capture's.
func (c *tmuxControl) next(timer <-chan time.Time) (controlEvent, bool, error) {
	select {
	case ev, ok := <-c.events:
		if !ok {
			return ev, false, fmt.Errorf("the tmux control client ended")
		}
		if ev.output {
			return ev, false, nil
		}
		if len(c.expect) == 0 {
			return ev, false, fmt.Errorf("tmux answered a command not sent: %q", ev.answer)
		}
		capture := c.expect[0]
		c.expect = c.expect[1:]
		return ev, capture, nil
	case <-timer:
		return controlEvent{}, false, fmt.Errorf("timed out")
	}
}

// drain forgets what arrived before now: output, and answers not read.
func (c *tmuxControl) drain() {
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return
			}
			if !ev.output && len(c.expect) > 0 {
				c.expect = c.expect[1:]
			}
		default:
			return
		}
	}
}

// keyToFrame types mark into target and returns the time from sending it
// to the last output of target before a capture of target shows it (the
// renderer may draw a mark across frames, and draws only the cells that
// change, so the output itself is not searched).
func (c *tmuxControl) keyToFrame(target, mark string, timeout time.Duration) (time.Duration, error) {
	c.drain()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	start := time.Now()
	if err := c.command(fmt.Sprintf("send-keys -t %s -l %s", target, mark), false); err != nil {
		return 0, err
	}
	last, err := c.until(target, mark, false, timer.C)
	return last.Sub(start), err
}

// waitForText waits until target shows text, capturing it once now and
// again after target writes.
func (c *tmuxControl) waitForText(target, text string, timeout time.Duration) error {
	c.drain()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	_, err := c.until(target, text, true, timer.C)
	return err
}

// until waits for a capture of target that shows mark, capturing after
// target writes (one capture at a time, and one more if it wrote while a
// capture was on its way), and returns when target last wrote before it.
func (c *tmuxControl) until(target, mark string, captureNow bool, timer <-chan time.Time) (time.Time, error) {
	var last time.Time
	capture := "capture-pane -p -t " + target
	capturing, wroteSince := captureNow, false
	if captureNow {
		if err := c.command(capture, true); err != nil {
			return last, err
		}
	}
	for {
		ev, captured, err := c.next(timer)
		if err != nil {
			return last, fmt.Errorf("waiting for %q: %w", mark, err)
		}
		switch {
		case ev.output && capturing:
			last, wroteSince = ev.at, true
		case ev.output:
			last = ev.at
			capturing = true
			if err := c.command(capture, true); err != nil {
				return last, err
			}
		case captured && strings.Contains(ev.answer, mark):
			return last, nil
		case captured:
			capturing = wroteSince
			if wroteSince {
				wroteSince = false
				if err := c.command(capture, true); err != nil {
					return last, err
				}
			}
		}
	}
}
