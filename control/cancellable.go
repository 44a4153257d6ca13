package control

import (
	"context"
	"errors"
	"sync"
)

// Cancellable is the stop switch of a turn. Its Context is handed to the
// HTTP request and to running tools, so Cancel aborts both at once rather
// than waiting for the next check. One instance may be shared by a parent
// agent, its synthesizer and its sub-agents: one Cancel stops the tree.
type Cancellable struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelCauseFunc
	reason string
	done   bool
}

// NewCancellable returns a Cancellable; each turn's context derives from
// the parent Start is given.
func NewCancellable() *Cancellable {
	c := &Cancellable{}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	return c
}

// Reset arms a fresh turn context of its own; the previous one is
// cancelled, so anything still holding it from an earlier turn sees "stop".
func (c *Cancellable) Reset() { c.Start(context.Background()) }

// Start arms a fresh turn context derived from parent: cancelling parent
// cancels the turn, with parent's cause as the reason.
func (c *Cancellable) Start(parent context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The previous turn is over: whatever still holds its context sees
	// "stop", and a long-lived parent does not keep it as a child.
	c.cancel(errTurnOver)
	c.ctx, c.cancel = context.WithCancelCause(parent)
	c.reason = ""
	c.done = false
}

// errTurnOver is the cause of a turn context ended by the next turn.
var errTurnOver = errors.New("the turn is over")

// Cancel stops the current turn; reason is reported by Check. Calling it
// twice keeps the first reason.
func (c *Cancellable) Cancel(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done = true
		c.reason = reason
	}
	c.cancel(&CancelledError{Reason: c.reason})
}

// Check returns a *CancelledError once the turn was cancelled: by Cancel,
// or by the parent context given to Start.
func (c *Cancellable) Check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return &CancelledError{Reason: c.reason}
	}
	if c.ctx.Err() != nil {
		c.done = true
		c.reason = context.Cause(c.ctx).Error()
		return &CancelledError{Reason: c.reason}
	}
	return nil
}

// Cancelled reports whether the turn was cancelled.
func (c *Cancellable) Cancelled() bool { return c.Check() != nil }

// Context is the current turn's context: done when the turn is cancelled.
func (c *Cancellable) Context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}
