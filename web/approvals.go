package web

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// Approvals asks the page whether a tool may run: a card with the
// command or the diff and explicit buttons. It is a tool.Approver; with
// another approver (the REPL's) the first answer wins and the other
// question closes (Either).
type Approvals struct {
	stream *Stream
	mu     sync.Mutex
	next   int
	asks   map[string]*question
	// one: sub-agents working at once ask one after the other.
	one chan struct{}
}

type question struct {
	view  approvalView
	reply chan answer
}

type answer struct{ d tool.Decision }

// approvalView is the card the page draws.
type approvalView struct {
	ID      string   `json:"id"`
	Tool    string   `json:"tool"`
	CallID  string   `json:"call_id,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Summary string   `json:"summary"`
	Detail  string   `json:"detail,omitempty"`
	Command string   `json:"command,omitempty"`
	Warning string   `json:"warning,omitempty"`
	Why     []string `json:"why,omitempty"`
	Always  bool     `json:"always"`
	Scope   string   `json:"always_scope,omitempty"` // how long "always" lasts ("": this session)
	NoModel bool     `json:"no_model,omitempty"`
}

// NewApprovals asks through stream's pages.
func NewApprovals(stream *Stream) *Approvals {
	return &Approvals{stream: stream, asks: map[string]*question{}, one: make(chan struct{}, 1)}
}

// Approve implements tool.Approver.
func (a *Approvals) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	return a.ask(ctx, r)
}

func (a *Approvals) ask(ctx context.Context, r tool.Request) (tool.Decision, error) {
	select {
	case a.one <- struct{}{}:
		defer func() { <-a.one }()
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
	q := &question{reply: make(chan answer, 1), view: viewOf(r)}
	if o, ok := listener.OriginOf(ctx); ok {
		q.view.Agent = o.Agent
	}
	a.mu.Lock()
	a.next++
	q.view.ID = strconv.Itoa(a.next)
	a.asks[q.view.ID] = q
	a.mu.Unlock()
	a.stream.Publish("approval", q.view)
	select {
	case ans := <-q.reply:
		return ans.d, nil
	case <-ctx.Done():
		var elsewhere *tool.AnsweredElsewhere
		if errors.As(context.Cause(ctx), &elsewhere) {
			a.close(q.view.ID, "terminal", elsewhere.Said)
		} else {
			a.close(q.view.ID, "cancelled", "the turn was cancelled")
		}
		return tool.Decision{}, ctx.Err()
	}
}

func viewOf(r tool.Request) approvalView {
	s := listener.String
	v := approvalView{Tool: r.Tool, CallID: r.CallID, Summary: s(r.Review.Summary), Detail: s(r.Review.Detail),
		Command: s(r.Review.Command), Warning: s(r.Review.Warning), Always: len(r.Always) > 0, NoModel: r.NoModel, Scope: r.AlwaysScope}
	for _, w := range r.Why {
		v.Why = append(v.Why, s(w))
	}
	if v.Summary == "" {
		v.Summary = r.Tool
	}
	return v
}

// Pending is the question on the page now, if any.
func (a *Approvals) Pending() []approvalView {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []approvalView{}
	for _, q := range a.asks {
		out = append(out, q.view)
	}
	return out
}

var errNoQuestion = errors.New("no such question is waiting (it was answered or the turn ended)")

// Answer answers question id: "yes", "always", "no", or "why" with a
// reason for the model; by says where ("browser", "terminal").
func (a *Approvals) Answer(id, verdict, reason, by string) error {
	var d tool.Decision
	said := ""
	switch verdict {
	case "yes":
		d, said = tool.Decision{Verdict: tool.Allow}, "approved"
	case "always":
		d, said = tool.Decision{Verdict: tool.AllowAlways}, "approved for the session"
	case "no":
		d, said = tool.Decision{Verdict: tool.Deny, Reason: "the user declined"}, "declined"
	case "why":
		reason = strings.TrimSpace(reason)
		if reason == "" {
			reason = "the user declined"
		}
		d, said = tool.Decision{Verdict: tool.Deny, Reason: "the user declined: " + reason}, "declined: "+reason
	default:
		return errors.New(`the answer is one of "yes", "always", "no", "why"`)
	}
	a.mu.Lock()
	q := a.asks[id]
	if q != nil && verdict == "always" && !q.view.Always {
		a.mu.Unlock()
		return errors.New(`"always" is not offered for this call`)
	}
	a.mu.Unlock()
	if q == nil {
		return errNoQuestion
	}
	if !a.close(id, by, said) {
		return errNoQuestion
	}
	q.reply <- answer{d: d}
	return nil
}

// close takes question id off the pages; false when it was no longer there.
func (a *Approvals) close(id, by, said string) bool {
	a.mu.Lock()
	_, ok := a.asks[id]
	delete(a.asks, id)
	a.mu.Unlock()
	if ok {
		a.stream.Publish("approval_closed", map[string]string{"id": id, "by": by, "said": said})
	}
	return ok
}

// Either asks the terminal and the page at once: the first answer wins,
// and the other question closes saying where it was answered.
func Either(terminal tool.Approver, page *Approvals) tool.Approver {
	return either{terminal, page}
}

type either struct {
	terminal tool.Approver
	page     *Approvals
}

func (e either) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	type result struct {
		d     tool.Decision
		err   error
		where string
	}
	termCtx, closeTerm := context.WithCancelCause(ctx)
	pageCtx, closePage := context.WithCancelCause(ctx)
	defer closeTerm(nil)
	defer closePage(nil)
	results := make(chan result, 2)
	go func() {
		d, err := e.terminal.Approve(termCtx, r)
		results <- result{d, err, "in the terminal"}
	}()
	go func() {
		d, err := e.page.ask(pageCtx, r)
		results <- result{d, err, "in a browser"}
	}()
	first := <-results
	if first.err == nil {
		answered := &tool.AnsweredElsewhere{Where: first.where, Said: tool.Said(first.d)}
		if first.where == "in a browser" {
			closeTerm(answered)
		} else {
			closePage(answered)
		}
	}
	<-results // the other question closed
	return first.d, first.err
}

// Share lets a run with a terminal be shown on a page later (/serve):
// made before the run, its Approver asks the terminal alone until a page
// joins, then the terminal and the page at once (Either).
type Share struct {
	Stream    *Stream
	Approvals *Approvals
	terminal  tool.Approver
	joined    atomic.Bool
}

// NewShare asks through terminal until Join.
func NewShare(terminal tool.Approver) *Share {
	st := NewStream()
	return &Share{Stream: st, Approvals: NewApprovals(st), terminal: terminal}
}

// Join makes the page ask too, from the next question on.
func (s *Share) Join() { s.joined.Store(true) }

// Approve implements tool.Approver.
func (s *Share) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	if !s.joined.Load() {
		return s.terminal.Approve(ctx, r)
	}
	return Either(s.terminal, s.Approvals).Approve(ctx, r)
}
