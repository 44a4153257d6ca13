package tool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chatrepl/chat/internal/clip"
)

// Review is what a tool says about one call before it runs: whether a
// person must approve it, what to show them, and what an "always" answer
// would cover. A tool reviews a call without reading or changing anything
// the policy has not yet allowed.
type Review struct {
	NeedsApproval bool
	Summary       string // one line: "create notes.txt (3 lines)"
	Detail        string // shown in full when asking: a diff
	Command       string // for run_shell: judged by parsing it
	Target        string // the resolved path or address the call acts on
	Warning       string // said when asking: "127.0.0.1 is a loopback address"
	// Grants are what the call needs; an "always" answer records them.
	Grants []Grant
	// Confined: the command runs in the sandbox; only deny lists (and what
	// they cannot see through) stop or ask.
	Confined bool
	// LeavesBox: the model asks to run outside the sandbox; only the person
	// may allow it, each time (not --yes, allow lists or "always").
	LeavesBox bool
	// AskAlways: no allow list or "always" answer covers it (a command
	// with no sandbox to run in where one was wanted); --yes still does.
	AskAlways bool
	// PersonOnly is why only the person may allow this call, each time:
	// not --yes, allow lists, hooks or "always" (a fetch of a cloud
	// metadata or link-local address).
	PersonOnly string
	// HookAsks is why a PreToolUse hook wants the person asked (whatever
	// allows the call otherwise); HookAllows: a hook allows it without
	// asking, within the deny lists and the sandbox.
	HookAsks   string
	HookAllows bool

	file *fileTarget // a file tool's target, resolved once at review
	host *hostPin    // fetch_url's address, resolved once at review
}

// GrantKind says what a Grant covers.
type GrantKind int

const (
	GrantRead  GrantKind = iota + 1 // reading under a directory
	GrantWrite                      // writing under a directory
	GrantShell                      // shell commands starting with a prefix
	GrantHost                       // fetching from one host
	GrantTool                       // every call of one tool (a tool that names no narrower scope)
	GrantNet                        // boxed commands reaching one host
)

// Grant is one thing an "always" answer allows for the rest of the
// session: a directory (and what is under it), a command prefix or a host.
type Grant struct {
	Kind  GrantKind
	Value string
}

func (g Grant) String() string {
	switch g.Kind {
	case GrantRead:
		return "reading under " + g.Value
	case GrantWrite:
		return "changing files under " + g.Value
	case GrantShell:
		return "commands starting with " + g.Value
	case GrantHost:
		return "fetching from " + g.Value
	case GrantTool:
		return "every call of " + g.Value
	case GrantNet:
		return "connecting to " + g.Value + " from the sandbox"
	}
	return g.Value
}

// covers says whether g allows what need asks for.
func (g Grant) covers(need Grant) bool {
	if g.Kind != need.Kind {
		return false
	}
	switch g.Kind {
	case GrantRead, GrantWrite:
		_, in := under(g.Value, need.Value)
		return in
	case GrantShell:
		return hasCommandPrefix(need.Value, g.Value)
	}
	return g.Value == need.Value
}

// Verdict is a person's (or the policy's) answer.
type Verdict int

const (
	Deny Verdict = iota
	Allow
	AllowAlways // what the request's Always lists, for the rest of the session
)

// Decision is a verdict and, for a denial, what to tell the model.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// Request is what an Approver is asked.
type Request struct {
	Tool string
	// CallID is the model's id of the call being asked about (empty outside
	// a turn): a front end shows the question on that call.
	CallID string
	Review Review
	// Why says why the policy asks when it would not ask for a plainer
	// call ("it writes to a file (> out.txt)").
	Why []string
	// Always is what answering "always" would allow from now on; empty
	// when "always" is not offered.
	Always []Grant
	// NoModel: chat asks for itself (trusting a project's hooks), no
	// model waits for the answer, so there is no one to tell why.
	NoModel bool
	// Granted is what the person is told when they answer yes ("" says
	// nothing).
	Granted string
	// AlwaysScope is how long "always" lasts ("": this session).
	AlwaysScope string
	// changesFiles: the tool says its calls may change files (plan mode
	// refuses them).
	changesFiles bool
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
// given in this session. Deny wins over everything: a denied tool or shell
// command never runs, whatever else says yes.
type Policy struct {
	AllowAll   bool
	AllowTools []string
	DenyTools  []string
	AllowShell []string // command prefixes, e.g. "go test", "git status"
	DenyShell  []string

	mu     sync.Mutex
	grants []Grant
	// planning: plan mode, where nothing is written before the person
	// says go (SetPlanning).
	planning atomic.Bool
	// reviewing: a review, where the tools that write are not even offered.
	reviewing atomic.Bool
}

// SetPlanning turns plan mode on or off for every set these rules decide
// about, sub-agents' included: a call whose tool may change files is
// refused, but for a command in a read-only box (the kernel refuses its
// writes; the confinement is made read-only with plan mode).
func (p *Policy) SetPlanning(on bool) { p.planning.Store(on) }

// SetReviewing withholds the tools that write from the model (a review),
// or offers them again.
func (p *Policy) SetReviewing(on bool) { p.reviewing.Store(on) }

// Planning reports whether plan mode is on.
func (p *Policy) Planning() bool { return p != nil && p.planning.Load() }

// State says how a tool is treated now, for /tools (at most 22
// characters: one row each). confined tools run freely inside the
// working directory and ask outside it.
func (p *Policy) State(name string, confined bool) string {
	switch {
	case p != nil && slices.Contains(p.DenyTools, name):
		return "denied by the config"
	case p != nil && p.AllowAll:
		return "allowed (--yes)"
	case p != nil && slices.Contains(p.AllowTools, name):
		return "allowed by the config"
	case confined:
		return "free here, asks outside"
	}
	return "asks"
}

// StateOf is t's row in /tools: a tool that never asks says so.
func (p *Policy) StateOf(t Tool) string {
	if _, never := t.(interface{ neverAsks() }); never && (p == nil || !slices.Contains(p.DenyTools, t.Name())) {
		return "runs without asking"
	}
	return p.State(t.Name(), Confined(t))
}

// Offered reports whether the model is told about a tool at all: a tool
// the config denies is not offered.
func (p *Policy) Offered(name string) bool {
	if p != nil && p.reviewing.Load() && (name == "write_file" || name == "edit_file") {
		return false
	}
	return p == nil || !slices.Contains(p.DenyTools, name)
}

func (p *Policy) decide(ctx context.Context, r Request, a Approver) (Decision, error) {
	if p == nil {
		p = &Policy{}
	}
	if slices.Contains(p.DenyTools, r.Tool) {
		return Decision{Verdict: Deny, Reason: r.Tool + " is denied by the user's configuration"}, nil
	}
	if p.Planning() && r.changesFiles && !r.Review.Confined {
		return Decision{Verdict: Deny, Reason: "this is plan mode: nothing is changed before the user says go. Read, search and run read-only commands, then answer with the plan"}, nil
	}
	mustAsk := r.Review.HookAsks != ""
	if mustAsk {
		r.Why = append(r.Why, r.Review.HookAsks)
	}
	needs := r.Review.Grants
	if len(needs) == 0 && r.Review.Command == "" {
		needs = []Grant{{Kind: GrantTool, Value: r.Tool}} // no narrower scope: the tool
	}
	if c := r.Review.Command; c != "" {
		sh := analyzeShell(c, r.Review.Target)
		for _, cmd := range sh.commands {
			for _, prefix := range p.DenyShell {
				if cmd.matches(prefix) {
					return Decision{Verdict: Deny, Reason: fmt.Sprintf("the command %q is denied by the user's configuration (deny_shell %q)", clip.String(cmd.String(), 160), prefix)}, nil
				}
			}
		}
		// A part deny_shell cannot see into may hide a denied command:
		// nothing but a person may allow it.
		if opaque := sh.opaqueTo(p.DenyShell); len(opaque) > 0 {
			mustAsk = true
			r.Why = append(r.Why, opaque...)
		}
		if r.Review.Confined && !mustAsk {
			return Decision{Verdict: Allow}, nil // the box confines it
		}
		r.Why = append(r.Why, sh.risky...)
		needs = nil
		if len(sh.risky) == 0 && !r.Review.AskAlways && !r.Review.LeavesBox {
			for i, cmd := range sh.commands {
				if !sh.wrappers[i] && !p.shellAllowed(cmd) {
					needs = append(needs, Grant{Kind: GrantShell, Value: cmd.grantPrefix()})
				}
			}
			if len(needs) == 0 {
				r.Review.NeedsApproval = false
			}
		}
	}
	if r.Review.LeavesBox {
		mustAsk = true
		r.Why = append(r.Why, "it leaves the sandbox")
	}
	if r.Review.PersonOnly != "" {
		mustAsk = true
		r.Why = append(r.Why, r.Review.PersonOnly)
	}
	if !mustAsk {
		if !r.Review.NeedsApproval || p.AllowAll || slices.Contains(p.AllowTools, r.Tool) || r.Review.HookAllows {
			return Decision{Verdict: Allow}, nil
		}
		if len(r.Why) == 0 && len(needs) > 0 && !r.Review.AskAlways && p.granted(needs) {
			return Decision{Verdict: Allow}, nil
		}
	}
	if a == nil {
		why := ""
		if len(r.Why) > 0 {
			why = " (" + strings.Join(r.Why, "; ") + ")"
		}
		how := "the user can rerun with --yes or allow the tool in the config"
		if mustAsk {
			how = "only the user can allow it, each time, where chat can ask them (the REPL or an editor); --yes does not cover it"
		}
		return Decision{Verdict: Deny, Reason: r.Tool + " needs the user's approval" + why + ", and nobody can give it in this mode (" + how + ")"}, nil
	}
	if len(r.Why) == 0 && !r.Review.AskAlways {
		r.Always = dedupe(needs)
	}
	d, err := a.Approve(ctx, r)
	if err != nil {
		return Decision{}, err
	}
	if d.Verdict == AllowAlways {
		p.mu.Lock()
		p.grants = append(p.grants, r.Always...)
		p.mu.Unlock()
	}
	return d, nil
}

func (p *Policy) shellAllowed(cmd shellCommand) bool {
	for _, prefix := range p.AllowShell {
		if cmd.matches(prefix) {
			return true
		}
	}
	return false
}

// Grant allows what gs cover for the rest of the session, as an "always"
// answer does (the skills' folders are readable from the start).
func (p *Policy) Grant(gs ...Grant) {
	p.mu.Lock()
	p.grants = append(p.grants, gs...)
	p.mu.Unlock()
}

// granted reports whether every need is covered by an "always" answer.
func (p *Policy) granted(needs []Grant) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range needs {
		if !slices.ContainsFunc(p.grants, func(g Grant) bool { return g.covers(n) }) {
			return false
		}
	}
	return true
}

func dedupe(gs []Grant) []Grant {
	var out []Grant
	for _, g := range gs {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
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

// Notice: a note for the person about a call (a hook that failed).

type noticeKey struct{}

// WithNotice makes Notice(ctx, …) call f.
func WithNotice(ctx context.Context, f func(text string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, f)
}

// Notice shows text to the person, if anyone listens.
func Notice(ctx context.Context, text string) {
	if f, ok := ctx.Value(noticeKey{}).(func(string)); ok {
		f(text)
	}
}

// CallID: which of the model's calls a dispatch is for.

type callIDKey struct{}

// WithCallID tells Dispatch (and so an Approver) the model's id of the call.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallIDOf is the id WithCallID put in ctx.
func CallIDOf(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
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

// AnsweredElsewhere is why an approval's question was withdrawn: another
// front end on the same run answered it first (Where: "in a browser",
// "in the terminal"; Said: "approved", "declined: …"). A front end that
// finds it as the cause of its question's context closes the question
// and says so.
type AnsweredElsewhere struct{ Where, Said string }

func (e *AnsweredElsewhere) Error() string { return e.Said + " " + e.Where }

// Said is how a decision reads in a note ("approved", "declined: why").
func Said(d Decision) string {
	switch d.Verdict {
	case Allow:
		return "approved"
	case AllowAlways:
		return "approved for the session"
	}
	if d.Reason == "" {
		return "declined"
	}
	return "declined: " + strings.TrimPrefix(d.Reason, "the user declined: ")
}
