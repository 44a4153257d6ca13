package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Review is what a tool says about one call before it runs: whether a
// person must approve it, and what to show them (the command, a diff).
type Review struct {
	NeedsApproval bool
	Summary       string // one line: "run: go test ./..."
	Detail        string // shown in full when asking: a diff, a command
	Command       string // for run_shell: matched against the shell prefixes
}

// Gated is implemented by tools whose calls may need approval.
type Gated interface {
	// Review looks at a call; an error refuses it before anyone is asked
	// (a missing file for edit_file, say), as a tool error.
	Review(args json.RawMessage) (Review, error)
}

// Verdict is a person's (or the policy's) answer.
type Verdict int

const (
	Deny Verdict = iota
	Allow
	AllowAlways // this tool, for the rest of the session
)

// Decision is a verdict and, for a denial, what to tell the model.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// Request is what an Approver is asked.
type Request struct {
	Tool   string
	Review Review
}

// Approver asks a person. It must return when ctx is done.
type Approver interface {
	Approve(ctx context.Context, r Request) (Decision, error)
}

// ApproverFunc adapts a function.
type ApproverFunc func(ctx context.Context, r Request) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, r Request) (Decision, error) { return f(ctx, r) }

// Policy decides what runs without asking: --yes, the config's allow and
// deny lists (tool names, shell command prefixes), and "always" answers
// given in this session. Deny wins over allow.
type Policy struct {
	AllowAll   bool
	AllowTools []string
	DenyTools  []string
	AllowShell []string // command prefixes, e.g. "go test", "git status"
	DenyShell  []string

	mu     sync.Mutex
	always map[string]bool
}

// State says how a tool is treated now, for /tools.
func (p *Policy) State(name string, gated bool) string {
	switch {
	case p == nil && gated:
		return "asks"
	case p == nil:
		return "allowed"
	case slices.Contains(p.DenyTools, name):
		return "denied by the config"
	case !gated:
		return "allowed"
	case p.AllowAll:
		return "allowed (--yes)"
	case slices.Contains(p.AllowTools, name):
		return "allowed by the config"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.always[name] {
		return "allowed for this session"
	}
	return "asks"
}

func (p *Policy) decide(ctx context.Context, r Request, a Approver) (Decision, error) {
	if p == nil {
		p = &Policy{}
	}
	if slices.Contains(p.DenyTools, r.Tool) {
		return Decision{Verdict: Deny, Reason: r.Tool + " is denied by the user's configuration"}, nil
	}
	if c := r.Review.Command; c != "" {
		for _, prefix := range p.DenyShell {
			if hasCommandPrefix(c, prefix) {
				return Decision{Verdict: Deny, Reason: fmt.Sprintf("commands starting with %q are denied by the user's configuration", prefix)}, nil
			}
		}
	}
	if !r.Review.NeedsApproval || p.AllowAll || slices.Contains(p.AllowTools, r.Tool) {
		return Decision{Verdict: Allow}, nil
	}
	if c := r.Review.Command; c != "" {
		for _, prefix := range p.AllowShell {
			if hasCommandPrefix(c, prefix) && !strings.ContainsAny(c, ";&|`$><\n") {
				return Decision{Verdict: Allow}, nil
			}
		}
	}
	p.mu.Lock()
	always := p.always[r.Tool]
	p.mu.Unlock()
	if always {
		return Decision{Verdict: Allow}, nil
	}
	if a == nil {
		return Decision{Verdict: Deny, Reason: r.Tool + " needs the user's approval, and nobody can give it in this mode (the user can rerun with --yes or allow the tool in the config)"}, nil
	}
	d, err := a.Approve(ctx, r)
	if err != nil {
		return Decision{}, err
	}
	if d.Verdict == AllowAlways {
		p.mu.Lock()
		if p.always == nil {
			p.always = map[string]bool{}
		}
		p.always[r.Tool] = true
		p.mu.Unlock()
	}
	return d, nil
}

// hasCommandPrefix matches whole words: "go test" matches "go test ./..."
// but not "go testify".
func hasCommandPrefix(command, prefix string) bool {
	c, p := strings.Fields(command), strings.Fields(prefix)
	if len(p) == 0 || len(c) < len(p) {
		return false
	}
	return slices.Equal(c[:len(p)], p)
}

// Progress: a running tool may report output as it comes (run_shell does).

type progressKey struct{}

// WithProgress makes Progress(ctx, …) call f.
func WithProgress(ctx context.Context, f func(text string)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Progress reports some output of a running tool, if anyone listens.
func Progress(ctx context.Context, text string) {
	if f, ok := ctx.Value(progressKey{}).(func(string)); ok {
		f(text)
	}
}
