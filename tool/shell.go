package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/tool/sandbox"
)

// RunShell runs a command with bash in the working directory. In a
// sandbox mode it runs in the box without asking (deny lists still
// apply); a command the model asks to run outside the box always asks the
// person. Output streams to the person as it comes; on cancel or timeout
// the whole process group is killed, so nothing it started lives on.
type RunShell struct {
	Workspace
	described[runShellName]
}

// shellWaitDelay is how long output is still collected after bash exits.
const shellWaitDelay = 500 * time.Millisecond

type shellArgs struct {
	Command       string `json:"command"`
	Background    bool   `json:"background"`
	Timeout       int    `json:"timeout_seconds"`
	Unsandboxed   bool   `json:"unsandboxed"`
	Justification string `json:"justification"`
}

// Description says what the box allows, so the model knows when to ask
// for more.
func (s RunShell) Description() string {
	d := s.described.Description()
	switch c := s.Shell; {
	case c.ReadOnly():
		return d + " Commands run in a read-only sandbox: they can write nowhere" + c.netSentence() + " If a command truly needs more, set unsandboxed with a justification; the user decides."
	case c.Boxed():
		return d + " Commands run in a sandbox without asking: they may write only in the working directory (not .git/ or .chat/) and the temporary directory" + c.netSentence() + " If a command truly needs more, set unsandboxed with a justification; the user decides."
	}
	return d + " The user approves commands (some may be allowed by their configuration)."
}

// Review: in a box, nothing to ask (the policy still applies deny
// lists); leaving the box asks whatever else says yes; without a box the
// policy parses the command.
func (s RunShell) Review(_ context.Context, raw json.RawMessage) (Review, error) {
	var a shellArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return Review{}, err
	}
	if a.Command == "" {
		return Review{}, errors.New("command is empty")
	}
	r := Review{NeedsApproval: true, Summary: "run: " + a.Command, Command: a.Command, Target: s.root()}
	switch c := s.Shell; {
	case c.Boxed() && a.Unsandboxed:
		why := strings.TrimSpace(a.Justification)
		if why == "" {
			why = "(no reason given)"
		}
		r.Summary = "run OUTSIDE the sandbox: " + a.Command
		r.Warning = "the model asks to run this outside the sandbox (network, writes anywhere): " + clip.String(why, 300)
		r.LeavesBox = true
	case c.Boxed():
		r.NeedsApproval, r.Confined = false, true
	case c.AsksEveryCommand():
		r.Warning = "no sandbox on this system (" + c.Unavailable + "): the command runs unconfined"
		r.AskAlways = true
	}
	return r, nil
}

func (s RunShell) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a shellArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	if a.Background {
		return s.startJob(ctx, a)
	}
	timeout := 120 * time.Second
	if a.Timeout > 0 {
		timeout = min(time.Duration(a.Timeout)*time.Second, 10*time.Minute)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &shellOutput{ctx: ctx, max: s.maxOutput()}
	// What runs is what was reviewed: a call reviewed for the box never
	// leaves it.
	boxed := s.Shell.Boxed()
	if r, ok := Reviewed(ctx); ok {
		boxed = r.Confined
	}
	var status int
	var err error
	if boxed {
		status, err = s.runBoxed(ctx, a.Command, out)
	} else {
		status, err = s.runDirect(ctx, a.Command, out)
	}
	// When output is still being copied, taking the lock waits for it,
	// and nothing is reported after the call's result.
	out.mu.Lock()
	out.closed = true
	out.mu.Unlock()
	text := out.String()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("the command timed out after %s and was killed; output so far:\n%s", timeout, text)
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", err
	}
	if text == "" {
		text = "(no output)\n"
	}
	switch {
	case !boxed || status == 0 || !sandboxRefusal(text) || strings.Contains(text, "[chat's sandbox proxy refused"):
	case s.Shell.planning():
		// Plan mode refuses unsandboxed too: retrying would waste a step.
		text += "[the sandbox refused an operation: this is plan mode, where nothing is written and no command leaves the sandbox until the user says go; read and plan instead]\n"
	default:
		text += "[the sandbox refused an operation: writes outside the working directory (and in .git/ or .chat/) are not allowed, and the network reaches only the hosts the user allowed, through a proxy (HTTPS_PROXY is set; nothing else leaves the box, not DNS); if this command truly needs more, call run_shell again with unsandboxed and a justification]\n"
	}
	return s.withNotes(fmt.Sprintf("%s[exit status %d]", text, status)), nil
}

// sandboxRefusal spots the errors a refusal by the box produces.
func sandboxRefusal(out string) bool {
	for _, m := range []string{"Permission denied", "Read-only file system", "Operation not permitted", "Network is unreachable", "Could not resolve host", "Temporary failure in name resolution", "Connection refused"} {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

func (s RunShell) env() []string {
	if s.Shell == nil {
		return nil // this process's
	}
	return s.Shell.Env
}

// runBoxed runs a command in the box. What it made that would make git
// (or direnv, or chat) run a program later, outside any box, is undone
// right after it, and the output says so to the model and the person.
func (s RunShell) runBoxed(ctx context.Context, command string, out io.Writer) (int, error) {
	status, undone, err := s.Shell.guarded(s.root(), "command", func(box *sandbox.Box) (int, error) {
		return s.runIn(ctx, box, command, out)
	})
	if len(undone) > 0 {
		_, _ = out.Write([]byte(guardNote(undone) + "\n"))
	}
	return status, err
}

// runIn runs a command with bash in a box.
func (s RunShell) runIn(ctx context.Context, box *sandbox.Box, command string, out io.Writer) (int, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return 0, err
	}
	env, tag, done := s.Shell.withProxyEnv(box, s.env(), command)
	if j := jobOf(ctx); j != nil && tag != "" {
		fctx, stop := context.WithCancel(ctx)
		defer stop()
		go forwardJobPorts(fctx, box, tag, j, s.Shell.Forwarded)
	}
	status, err := box.Run(ctx, []string{bash, "-c", command}, env, s.root(), out, shellWaitDelay)
	if ctx.Err() != nil {
		// Stopped or cancelled: nothing the command started lives on, even
		// where the box's kill of its group did not reach it.
		box.KillTagged(commandTag, tag)
	}
	if note := refusalNote(done()); note != "" {
		_, _ = io.WriteString(out, note)
	}
	return status, err
}

// HostCommand is a command run outside any sandbox (run_shell's
// unconfined path, hooks, the person's own ! commands): in its own
// process group, all of which a done ctx kills, and which dies with chat
// even after a kill -9.
func HostCommand(ctx context.Context, dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = groupDyingWithChat()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A child left running in the background (a server started with &)
	// keeps the output pipe open; do not wait for it once the command is done.
	cmd.WaitDelay = shellWaitDelay
	return cmd
}

// runDirect runs a command unconfined: in the plain box where it can
// start (so what the command leaves running dies with chat), else as a
// child of chat.
func (s RunShell) runDirect(ctx context.Context, command string, out io.Writer) (int, error) {
	if s.Shell != nil {
		if box, err := s.Shell.running(false); err == nil {
			return s.runIn(ctx, box, command, out)
		}
	}
	cmd := HostCommand(ctx, s.root(), s.env(), "bash", "-c", command)
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return 0, err
	}
	return 0, nil
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

// withNotes adds to a result what the model has not been told: jobs that
// ended, and what the repositories' guard undid meanwhile.
func (s RunShell) withNotes(result string) string {
	result = s.Jobs.withJobNotes(result)
	if n := s.Shell.guardNotes(); n != "" {
		result += "\n" + n
	}
	return result
}
