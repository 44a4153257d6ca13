package tool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Tool is something the model can call.
type Tool interface {
	Name() string
	Description() string
	// Parameters is a JSON Schema of type object.
	Parameters() json.RawMessage
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout() time.Duration
	// Review looks at a call before it runs and says whether a person
	// must approve it (and what to show them). It must not read or change
	// what the call would; an error refuses the call, as a tool error.
	// Every tool has one, so no wrapper can hide it from the policy.
	Review(ctx context.Context, args json.RawMessage) (Review, error)
	// Run does the work. It must return when ctx is done. Reviewed(ctx)
	// is the review the policy approved.
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// Briefer is a tool with a short form, offered instead when the context
// window is small: a one-line description and the schema without its
// descriptions; ok false leaves the tool out then.
type Briefer interface {
	Brief() (description string, parameters json.RawMessage, ok bool)
}

// FileChanger is how a tool says whether its calls may change files in
// the workspace (a checkpoint is taken before each call that may). A
// tool that does not say is taken to: a new tool that writes is never
// silently left out of a rewind.
type FileChanger interface{ ChangesFiles() bool }

// ChangesFiles says whether calls of t may change files.
func ChangesFiles(t Tool) bool {
	if fc, ok := t.(FileChanger); ok {
		return fc.ChangesFiles()
	}
	return true
}

// Unreviewed is embedded by tools that never need approval.
type Unreviewed struct{}

// Review implements Tool: nothing to ask.
func (Unreviewed) Review(context.Context, json.RawMessage) (Review, error) { return Review{}, nil }

func (Unreviewed) neverAsks() {}

// DefaultTimeout applies to tools that do not set their own.
const DefaultTimeout = 2 * time.Minute

// reviewTimeout bounds a review (fetch_url resolves its host in one).
const reviewTimeout = 15 * time.Second

// Error types of a failed Result.
const (
	ErrTypeInvalidArguments = "invalid_arguments"
	ErrTypeUnknownTool      = "unknown_tool"
	ErrTypeExecution        = "execution_error"
	ErrTypeTimeout          = "timeout"
	ErrTypeCancelled        = "cancelled"
	ErrTypeDenied           = "denied"
)

// Result is a call's outcome as the model will read it.
type Result struct {
	Content string
	Err     error  // set when the call failed; Content then explains it
	ErrType string // one of the ErrType constants
}

// Rules decide about a run's calls: the approval policy (its "always"
// grants included), who asks the person (nil Approver: what needs
// approval is refused), and the person's hooks around each call (nil:
// none). A run has one value, given to every set made for its agents.
type Rules struct {
	Policy   *Policy
	Approver Approver
	Hooks    CallHooks
}

// Set makes a set of tools that these rules decide about; a later tool
// with the same name wins.
func (r Rules) Set(tools ...Tool) *Set {
	if r.Policy == nil {
		r.Policy = &Policy{}
	}
	s := &Set{index: map[string]Tool{}, rules: r}
	for _, t := range tools {
		s.Add(t)
	}
	return s
}

// Set is one agent's tools, in order, looked up by name, with the rules
// that decide about their calls. Tools may be added while calls run (an
// MCP server's, once connected): each agent has a set of its own, so what
// one adds never reaches another (Copy, Without).
type Set struct {
	rules    Rules
	mu       sync.RWMutex
	tools    []Tool
	index    map[string]Tool
	timeouts map[string]time.Duration
	// withheld are names (or path.Match patterns, "github__*") never
	// added to this set, even later: sub_agents_only tools, MCP ones too.
	withheld []string
}

// Rules are what decides about the set's calls.
func (s *Set) Rules() Rules { return s.rules }

// Policy is the set's approval policy.
func (s *Set) Policy() *Policy { return s.rules.Policy }

// SetTimeout overrides the named tool's own timeout (an agent definition
// may ask for its own).
func (s *Set) SetTimeout(name string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timeouts == nil {
		s.timeouts = map[string]time.Duration{}
	}
	s.timeouts[name] = d
}

// Timeout is how long a call of t may run in this set.
func (s *Set) Timeout(t Tool) time.Duration {
	s.mu.RLock()
	d, ok := s.timeouts[t.Name()]
	s.mu.RUnlock()
	if ok && d > 0 {
		return d
	}
	if d := t.Timeout(); d > 0 {
		return d
	}
	return DefaultTimeout
}

// NewSet returns a set of tools under an empty policy and no approver:
// what needs approval is refused. A run makes its sets with Rules.Set.
func NewSet(tools ...Tool) *Set { return Rules{}.Set(tools...) }

// Add registers a tool, unless the set withholds it.
func (s *Set) Add(t Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.withholds(t.Name()) {
		return
	}
	if _, dup := s.index[t.Name()]; !dup {
		s.tools = append(s.tools, t)
	} else {
		for i := range s.tools {
			if s.tools[i].Name() == t.Name() {
				s.tools[i] = t
			}
		}
	}
	s.index[t.Name()] = t
}

func (s *Set) withholds(name string) bool {
	for _, w := range s.withheld {
		if ok, _ := path.Match(w, name); ok || w == name {
			return true
		}
	}
	return false
}

// Empty is a set with the same rules, withheld names and timeouts, and no
// tools yet.
func (s *Set) Empty() *Set {
	out := s.rules.Set()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out.withheld = slices.Clone(s.withheld)
	if len(s.timeouts) > 0 {
		out.timeouts = maps.Clone(s.timeouts)
	}
	return out
}

// Copy is a set of the same tools, rules, withheld names and timeouts, of
// its own: a tool added to one (an MCP server's) is not in the other.
func (s *Set) Copy() *Set { return s.Without() }

// Without is a copy of the set without the named tools, now and later
// (names may be patterns).
func (s *Set) Without(names ...string) *Set {
	out := s.Empty()
	out.withheld = append(out.withheld, names...)
	for _, t := range s.All() {
		out.Add(t)
	}
	return out
}

// Concurrent is implemented by tools whose calls may run at the same time
// as other calls of the same answer (the agent tool: sub-agents work in
// parallel).
type Concurrent interface {
	Concurrent() bool
}

// All returns the tools in the order they were added.
func (s *Set) All() []Tool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Tool(nil), s.tools...)
}

// Offered returns the tools the model is told about: all but those the
// policy denies outright.
func (s *Set) Offered() []Tool {
	var out []Tool
	for _, t := range s.All() {
		if s.rules.Policy.Offered(t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

// Lookup finds a tool by name.
func (s *Set) Lookup(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.index[name]
	return t, ok
}

type setKey struct{}

// WithSet tells a running tool which set it was called from: the calling
// agent's (mcp_connect adds the server's tools to it).
func WithSet(ctx context.Context, s *Set) context.Context { return context.WithValue(ctx, setKey{}, s) }

// SetOf is the set a call came from, nil outside Dispatch.
func SetOf(ctx context.Context) *Set {
	s, _ := ctx.Value(setKey{}).(*Set)
	return s
}

func (s *Set) names() string {
	var n []string
	for _, t := range s.All() {
		n = append(n, t.Name())
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// Dispatch runs the named tool with the model's raw arguments. Unknown
// tools, arguments that are not a JSON object matching the schema, panics,
// timeouts and errors all come back as a failed Result, never as a crash.
func (s *Set) Dispatch(ctx context.Context, name, args string) Result {
	ctx = WithSet(ctx, s)
	t, ok := s.Lookup(name)
	if !ok {
		return fail(ErrTypeUnknownTool, fmt.Errorf("unknown tool %q; the available tools are: %s", name, s.names()))
	}
	raw := json.RawMessage(strings.TrimSpace(args))
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := CheckArgs(t.Parameters(), raw); err != nil {
		return fail(ErrTypeInvalidArguments, fmt.Errorf("invalid arguments for %s: %v; send a JSON object matching its schema: %s", name, err, t.Parameters()))
	}
	if !s.rules.Policy.Offered(name) {
		return fail(ErrTypeDenied, fmt.Errorf("%s was not run: it is denied by the user's configuration. Do not retry it; take another way", name))
	}
	timeout := s.Timeout(t)
	// Every call goes through the policy: it refuses denied tools, and asks
	// (or not) for the ones whose Review says so. Waiting for the person
	// does not count against the tool's timeout.
	reviewCtx, cancelReview := context.WithTimeout(ctx, min(timeout, reviewTimeout))
	review, err := t.Review(reviewCtx, raw)
	cancelReview()
	if err != nil {
		return fail(ErrTypeExecution, err)
	}
	if s.rules.Hooks != nil {
		v := s.rules.Hooks.Before(ctx, name, raw)
		switch v.Decision {
		case HookDeny:
			return fail(ErrTypeDenied, fmt.Errorf("%s was not run: the user's hook blocked it: %s", name, v.Reason))
		case HookAsk:
			review.HookAsks = cmp.Or(v.Reason, "a hook asks for the user's approval")
		case HookAllow:
			review.HookAllows = true
		}
		if ctx.Err() != nil {
			return fail(ErrTypeCancelled, fmt.Errorf("%s was cancelled", name))
		}
	}
	if res, ok := s.authorize(ctx, t, review); !ok {
		return res
	}
	if started, ok := ctx.Value(startKey{}).(func()); ok {
		started()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = context.WithValue(ctx, reviewKey{}, reviewed{review: review, authorize: func(ctx context.Context, r Review) error {
		if res, ok := s.authorize(ctx, t, r); !ok {
			return res.Err
		}
		return nil
	}})
	out, err := run(ctx, t, raw)
	if s.rules.Hooks != nil && ctx.Err() == nil {
		res := outcome(ctx, name, timeout, out, err)
		if note := s.rules.Hooks.After(ctx, name, raw, res); note != "" {
			res.Content += "\n\n" + note
		}
		return res
	}
	return outcome(ctx, name, timeout, out, err)
}

// outcome is what a run of tool name says to the model.
func outcome(ctx context.Context, name string, timeout time.Duration, out string, err error) Result {
	switch {
	case err == nil:
		return Result{Content: out}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fail(ErrTypeTimeout, fmt.Errorf("%s timed out after %s", name, timeout))
	case ctx.Err() != nil:
		return fail(ErrTypeCancelled, fmt.Errorf("%s was cancelled", name))
	}
	return fail(ErrTypeExecution, err)
}

// authorize puts a review to the policy; false comes with the failed
// Result to return.
func (s *Set) authorize(ctx context.Context, t Tool, review Review) (Result, bool) {
	name := t.Name()
	d, err := s.rules.Policy.decide(ctx, Request{Tool: name, CallID: CallIDOf(ctx), Review: review, changesFiles: ChangesFiles(t)}, s.rules.Approver)
	if err != nil {
		return fail(ErrTypeCancelled, fmt.Errorf("%s was not run: %v", name, err)), false
	}
	if d.Verdict == Deny {
		reason := d.Reason
		if reason == "" {
			reason = "the user declined"
		}
		return fail(ErrTypeDenied, fmt.Errorf("%s was not run: %s. Do not retry it unchanged; ask the user or take another way", name, reason)), false
	}
	return Result{}, true
}

type startKey struct{}

// WithStart makes Dispatch call f once the call is approved, just before
// it runs (the session writes down that it started, a checkpoint is
// taken).
func WithStart(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, startKey{}, f)
}

type reviewKey struct{}

type reviewed struct {
	review    Review
	authorize func(context.Context, Review) error
}

// Reviewed is the review the policy approved for the running call; false
// when the tool runs outside Dispatch (its own tests).
func Reviewed(ctx context.Context) (Review, bool) {
	r, ok := ctx.Value(reviewKey{}).(reviewed)
	return r.review, ok
}

// Authorize puts a further step of the running call to the policy (a
// redirect fetch_url follows); outside Dispatch it refuses.
func Authorize(ctx context.Context, r Review) error {
	rv, ok := ctx.Value(reviewKey{}).(reviewed)
	if !ok {
		return errors.New("not authorized: the call runs outside the tool set")
	}
	return rv.authorize(ctx, r)
}

func run(ctx context.Context, t Tool, args json.RawMessage) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the tool crashed: %v\n%s", p, firstLines(string(debug.Stack()), 8))
		}
	}()
	return t.Run(ctx, args)
}

func fail(typ string, err error) Result {
	return Result{Content: "Error: " + err.Error(), Err: err, ErrType: typ}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
