package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
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
	// Run does the work. It must return when ctx is done.
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// DefaultTimeout applies to tools that do not set their own.
const DefaultTimeout = 2 * time.Minute

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

// Set is an ordered collection of tools, looked up by name. Policy and
// Approver decide about calls that need approval (nil Approver: refused).
type Set struct {
	tools    []Tool
	index    map[string]Tool
	Policy   *Policy
	Approver Approver
}

// NewSet returns a set of tools; a later tool with the same name wins.
func NewSet(tools ...Tool) *Set {
	s := &Set{index: map[string]Tool{}}
	for _, t := range tools {
		s.Add(t)
	}
	return s
}

// Add registers a tool.
func (s *Set) Add(t Tool) {
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

// All returns the tools in the order they were added.
func (s *Set) All() []Tool {
	if s == nil {
		return nil
	}
	return append([]Tool(nil), s.tools...)
}

// Lookup finds a tool by name.
func (s *Set) Lookup(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	t, ok := s.index[name]
	return t, ok
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
	// Every call goes through the policy: it refuses denied tools, and asks
	// (or not) for the ones whose Review says so.
	var review Review
	if g, ok := t.(Gated); ok {
		r, err := g.Review(raw)
		if err != nil {
			return fail(ErrTypeExecution, err)
		}
		review = r
	}
	d, err := s.Policy.decide(ctx, Request{Tool: name, Review: review}, s.Approver)
	if err != nil {
		return fail(ErrTypeCancelled, fmt.Errorf("%s was not run: %v", name, err))
	}
	if d.Verdict == Deny {
		reason := d.Reason
		if reason == "" {
			reason = "the user declined"
		}
		return fail(ErrTypeDenied, fmt.Errorf("%s was not run: %s. Do not retry it unchanged; ask the user or take another way", name, reason))
	}
	timeout := t.Timeout()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := run(ctx, t, raw)
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

// Gated reports whether a tool may ask for approval.
func IsGated(t Tool) bool {
	_, ok := t.(Gated)
	return ok
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
