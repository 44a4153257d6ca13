package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// RunShell runs a command with bash in the working directory. It needs
// approval. Output streams to the person as it comes; on cancel or timeout
// the whole process group is killed, so nothing it started lives on.
type RunShell struct {
	Workspace
	described[runShellName]
}

// shellWaitDelay is how long output is still collected after bash exits.
const shellWaitDelay = 500 * time.Millisecond

type shellArgs struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout_seconds"`
}

// Review asks, unless the policy finds every command in the line on the
// allow list; the policy parses the command, not this tool.
func (s RunShell) Review(_ context.Context, raw json.RawMessage) (Review, error) {
	var a shellArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return Review{}, err
	}
	if a.Command == "" {
		return Review{}, errors.New("command is empty")
	}
	return Review{NeedsApproval: true, Summary: "run: " + a.Command, Command: a.Command, Target: s.root()}, nil
}

func (s RunShell) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a shellArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	timeout := 120 * time.Second
	if a.Timeout > 0 {
		timeout = min(time.Duration(a.Timeout)*time.Second, 10*time.Minute)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", a.Command)
	cmd.Dir = s.root()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The group: bash and everything it started.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A child left running in the background (a server started with &)
	// keeps the output pipe open; do not wait for it once bash is done.
	cmd.WaitDelay = shellWaitDelay
	out := &shellOutput{ctx: ctx, max: s.maxOutput()}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	// When WaitDelay lets Run return, a copy of output may still be in
	// Write: taking the lock waits for it, and nothing is reported after
	// the call's result.
	out.mu.Lock()
	out.closed = true
	out.mu.Unlock()
	text := out.String()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("the command timed out after %s and was killed; output so far:\n%s", timeout, text)
	case ctx.Err() != nil:
		return "", ctx.Err()
	}
	status := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return "", err
	}
	if text == "" {
		text = "(no output)\n"
	}
	return fmt.Sprintf("%s[exit status %d]", text, status), nil
}

// shellOutput collects a command's output, keeping the head and the tail
// when it is too long, and reports each piece as progress.
type shellOutput struct {
	ctx     context.Context
	max     int
	mu      sync.Mutex
	closed  bool // the call returned: late output is dropped, never reported
	head    bytes.Buffer
	tail    []byte
	dropped int
}

func (o *shellOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	if o.closed {
		return n, nil
	}
	Progress(o.ctx, string(p))
	half := o.max / 2
	if room := half - o.head.Len(); room > 0 {
		k := min(room, len(p))
		o.head.Write(p[:k])
		p = p[k:]
	}
	if len(p) > 0 {
		o.tail = append(o.tail, p...)
		if over := len(o.tail) - half; over > 0 {
			o.dropped += over
			o.tail = append(o.tail[:0], o.tail[over:]...)
		}
	}
	return n, nil
}

func (o *shellOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.head.String()
	if o.dropped > 0 {
		s += fmt.Sprintf("\n[… %d bytes of output cut …]\n", o.dropped)
	}
	return s + string(o.tail)
}
