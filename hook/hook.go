package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/sandbox"
)

// DefaultTimeout bounds a hook that sets none.
const DefaultTimeout = 60 * time.Second

// maxOutput bounds what is read of a hook's stdout and stderr.
const maxOutput = 64 << 10

// Hook is one command at one event.
type Hook struct {
	Event   string
	Matcher string // a regular expression on the tool name; "" or "*": every tool
	Command string
	Timeout time.Duration
	Source  string // where it was configured: "config" or a project file
	// Scripts are the files in the working directory the command names
	// (see Scripts): it runs only while each is as pinned.
	Scripts []string
	// Unboxed runs it outside the sandbox (sandbox = "off"); else it runs
	// in the box when the runner has one (InBox).
	Unboxed bool
	match   *regexp.Regexp
}

// Input is what a hook reads on stdin, beside the fields every event has.
type Input struct {
	Event          string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   any             `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	Source         string          `json:"source,omitempty"`  // SessionStart: startup, resume, clear
	Reason         string          `json:"reason,omitempty"`  // SessionEnd
	Trigger        string          `json:"trigger,omitempty"` // PreCompact: manual, auto
	Instructions   string          `json:"custom_instructions,omitempty"`
	Message        string          `json:"message,omitempty"` // Notification
	StopHookActive bool            `json:"stop_hook_active,omitempty"`
}

// Outcome is what the hooks of one event said.
type Outcome struct {
	// Blocked: a hook exited 2 or decided deny/block; Reason says why
	// (stderr, or the JSON's reason).
	Blocked bool
	Reason  string
	// Decision is a PreToolUse permission decision (allow, ask).
	Decision tool.HookDecision
	// Context is what the hooks add for the model (stdout of SessionStart
	// and UserPromptSubmit, additionalContext).
	Context string
	// Notes are for the person: failures, timeouts, systemMessage.
	Notes []string
}

// Runner runs the hooks of a session.
type Runner struct {
	mu    sync.RWMutex
	hooks []Hook
	// Dir is the working directory (also CHAT_PROJECT_DIR); Env the
	// children's environment.
	Dir string
	Env []string
	// Session names the session and its file for the hooks' input.
	Session func() (id, transcript string)
	// Report shows a note to the person when no turn is there to carry it
	// (the notes of tool hooks go with the call's output).
	Report func(string)
	// Retrust asks the person whether a hook whose scripts changed (path
	// → new digest) may run, and remembers a yes; nil refuses (print
	// mode, ACP: no one to ask).
	Retrust func(ctx context.Context, h Hook, changed map[string]string) bool
	// InBox runs a hook's command in the run's sandbox, as commands run
	// (the workspace writable, no network, no credentials): a hook then
	// never runs, outside, what a boxed command wrote (a Makefile, a
	// package.json script). nil: there is no box, hooks run outside.
	InBox func(ctx context.Context, dir string, env []string, command string, std sandbox.IO) (int, error)
	pins  map[string]string // script → the digest the person trusted
}

// Boxed reports whether h runs in the sandbox.
func (r *Runner) Boxed(h Hook) bool { return r.InBox != nil && !h.Unboxed }

// New is a runner for hooks, run in dir with env.
func New(hooks []Hook, dir string, env []string) (*Runner, error) {
	r := &Runner{Dir: dir, Env: append(slices.Clip(env), "CHAT_PROJECT_DIR="+dir)}
	return r, r.Add(hooks...)
}

// Add makes more hooks run from now on (a project's, once trusted).
func (r *Runner) Add(hooks ...Hook) error {
	var add []Hook
	for _, h := range hooks {
		if h.Matcher != "" && h.Matcher != "*" {
			re, err := regexp.Compile("^(?:" + h.Matcher + ")$")
			if err != nil {
				return fmt.Errorf("hook %s matcher %q: %v", h.Event, h.Matcher, err)
			}
			h.match = re
		}
		if h.Timeout <= 0 {
			h.Timeout = DefaultTimeout
		}
		h.Scripts = Scripts(h.Command, r.Dir)
		add = append(add, h)
	}
	r.mu.Lock()
	r.hooks = append(r.hooks, add...)
	r.mu.Unlock()
	return nil
}

// Pin records the digests the person trusted for scripts (path →
// Digest); a hook runs only while its scripts match them.
func (r *Runner) Pin(digests map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pins == nil {
		r.pins = map[string]string{}
	}
	for p, d := range digests {
		r.pins[p] = d
	}
}

// Changed are h's scripts that differ from their pins, with their
// digests now (nil: none).
func (r *Runner) Changed(h Hook) map[string]string {
	pinned := make(map[string]string, len(h.Scripts))
	r.mu.RLock()
	for _, p := range h.Scripts {
		pinned[p] = r.pins[p]
	}
	r.mu.RUnlock()
	var out map[string]string
	for _, p := range h.Scripts { // read outside the lock
		if d := Digest(p); d == "" || d != pinned[p] {
			if out == nil {
				out = map[string]string{}
			}
			out[p] = d
		}
	}
	return out
}

// List is the hooks, in the order they run.
func (r *Runner) List() []Hook {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.hooks)
}

// Has says whether any hook runs at event.
func (r *Runner) Has(event string) bool {
	for _, h := range r.List() {
		if h.Event == event {
			return true
		}
	}
	return false
}

// Run runs the hooks of in.Event that match in.ToolName, in order; a
// block ends it (later hooks do not run).
func (r *Runner) Run(ctx context.Context, in Input) Outcome {
	var out Outcome
	for _, h := range r.List() {
		if h.Event != in.Event || (h.match != nil && !h.match.MatchString(in.ToolName)) {
			continue
		}
		if changed := r.Changed(h); changed != nil && !r.retrusted(ctx, h, changed) {
			note := fmt.Sprintf("hook %s %q was not run: %s changed since it was trusted (read it, then run chat hooks trust)",
				h.Event, clip.String(h.Command, 80), strings.Join(slices.Sorted(maps.Keys(changed)), ", "))
			if in.Event == "PreToolUse" { // a policy that cannot run lets nothing through
				out.Blocked, out.Reason = true, note+"; the call is refused until then"
				break
			}
			out.Notes = append(out.Notes, note)
			continue
		}
		r.runOne(ctx, h, in, &out)
		if out.Blocked || ctx.Err() != nil {
			break
		}
	}
	return out
}

// retrusted asks whether h may run with its changed scripts; a yes pins
// them as they are now.
func (r *Runner) retrusted(ctx context.Context, h Hook, changed map[string]string) bool {
	for _, d := range changed {
		if d == "" || r.Retrust == nil {
			return false // a script gone or unreadable, or no one to ask
		}
	}
	if !r.Retrust(ctx, h, changed) {
		return false
	}
	r.Pin(changed)
	return true
}

func (r *Runner) runOne(ctx context.Context, h Hook, in Input, out *Outcome) {
	stdin, err := r.input(in)
	if err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("hook %s %q: %v", h.Event, h.Command, err))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	std := sandbox.IO{Stdin: bytes.NewReader(stdin), Stdout: &limited{b: &stdout}, Stderr: &limited{b: &stderr}}
	if r.Boxed(h) {
		var code int
		if code, err = r.InBox(ctx, r.Dir, r.Env, h.Command, std); err == nil && code != 0 {
			err = exitStatus(code)
		}
	} else {
		cmd := tool.HostCommand(ctx, r.Dir, r.Env, "sh", "-c", h.Command)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = std.Stdin, std.Stdout, std.Stderr
		if err = cmd.Run(); err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				err = exitStatus(exit.ExitCode())
			}
		}
	}
	name := fmt.Sprintf("hook %s %q", h.Event, clip.String(h.Command, 80))
	var exit exitStatus
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.Notes = append(out.Notes, fmt.Sprintf("%s timed out after %s and was stopped; it decided nothing", name, h.Timeout))
		return
	case ctx.Err() != nil:
		return // the turn was cancelled
	case errors.As(err, &exit) && exit == 2:
		out.Blocked = true
		out.Reason = strings.TrimSpace(stderr.String())
		if out.Reason == "" {
			out.Reason = name + " blocked it"
		}
		return
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s failed: %s", name, clip.String(lastLines(msg, 3), 300)))
		return
	}
	text := strings.TrimSpace(stdout.String())
	if strings.HasPrefix(text, "{") {
		if readAnswer(text, in.Event, out) {
			return
		}
	}
	if text != "" && (in.Event == "UserPromptSubmit" || in.Event == "SessionStart") {
		out.Context = joinLines(out.Context, text)
	}
}

// exitStatus is a hook that exited with a status other than 0.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// input is the JSON a hook reads.
func (r *Runner) input(in Input) ([]byte, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["cwd"] = r.Dir
	if r.Session != nil {
		id, path := r.Session()
		m["session_id"], m["transcript_path"] = id, path
	}
	m["permission_mode"] = "default"
	b, err = json.Marshal(m)
	return append(b, '\n'), err // a line: a shell's read gets it whole
}

// answer is the JSON a hook may print on stdout (exit 0).
type answer struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	Decision      string `json:"decision"` // block (approve/block for PreToolUse, the older form)
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
	Specific      struct {
		PermissionDecision       string `json:"permissionDecision"` // allow, deny, ask
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// readAnswer applies a JSON answer; false when text is not one.
func readAnswer(text, event string, out *Outcome) bool {
	var a answer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		return false
	}
	if a.SystemMessage != "" {
		out.Notes = append(out.Notes, a.SystemMessage)
	}
	out.Context = joinLines(out.Context, a.Specific.AdditionalContext)
	decision, reason := a.Specific.PermissionDecision, a.Specific.PermissionDecisionReason
	if decision == "" { // the older form of PreToolUse
		switch a.Decision {
		case "approve":
			decision = "allow"
		case "block":
			decision = "deny"
		}
		reason = a.Reason
	}
	switch {
	case a.Continue != nil && !*a.Continue:
		out.Blocked, out.Reason = true, cmp(a.StopReason, a.Reason, "a hook stopped it")
	case event == "PreToolUse" && decision == "deny":
		out.Blocked, out.Reason = true, cmp(reason, "a hook denied it")
	case event == "PreToolUse" && decision == "ask":
		out.Decision, out.Reason = tool.HookAsk, cmp(reason, "a hook asks for the user's approval")
	case event == "PreToolUse" && decision == "allow":
		if out.Decision == tool.HookNone {
			out.Decision = tool.HookAllow
		}
	case a.Decision == "block":
		out.Blocked, out.Reason = true, cmp(a.Reason, "a hook blocked it")
	}
	return true
}

func cmp(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func joinLines(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " · ")
}

// limited keeps the first maxOutput bytes and drops the rest (a hook
// that prints without end must not fill memory).
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
