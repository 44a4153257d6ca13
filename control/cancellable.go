package control

import (
	"context"
	"sync"
)

// Cancellable is the stop switch of a turn. Its Context is handed to the
// HTTP request and to running tools, so Cancel aborts both at once rather
// than waiting for the next check. One instance may be shared by a parent
// agent, its synthesizer and its sub-agents: one Cancel stops the tree.
type Cancellable struct {
	mu     sync.Mutex
	base   context.Context
	ctx    context.Context
	cancel context.CancelFunc
	reason string
	done   bool
}

// NewCancellable returns a Cancellable whose turn contexts derive from base
// (context.Background() when nil).
func NewCancellable(base context.Context) *Cancellable {
	if base == nil {
		base = context.Background()
	}
	c := &Cancellable{base: base}
	c.ctx, c.cancel = context.WithCancel(base)
	return c
}

// Reset arms a fresh turn context. The previous one stays cancelled, so
// anything still holding it from an earlier turn keeps seeing "stop".
func (c *Cancellable) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx, c.cancel = context.WithCancel(c.base)
	c.reason = ""
	c.done = false
}

// Cancel stops the current turn; reason is reported by Check. Calling it
// twice keeps the first reason.
func (c *Cancellable) Cancel(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done = true
		c.reason = reason
	}
	c.cancel()
}

// Check returns a *CancelledError once Cancel was called in this turn.
func (c *Cancellable) Check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return &CancelledError{Reason: c.reason}
	}
	return nil
}

// Cancelled reports whether Cancel was called in this turn.
func (c *Cancellable) Cancelled() bool { return c.Check() != nil }

// Context is the current turn's context: done when Cancel is called.
func (c *Cancellable) Context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}
