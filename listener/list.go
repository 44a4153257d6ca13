package listener

import "sync"

// Listener consumes events. It must return quickly (hand slow work to a
// goroutine of its own, as RateLimited and the TUI bridge do).
//
// Where the calls come from, as it is: events of a turn are emitted in
// order and one at a time. Most come from the agent's goroutine; ToolOutput
// comes from the goroutine that copies a running tool's output, while the
// agent waits for that tool, and never after the tool's ToolResult. A
// listener inside RateLimited is called from whichever goroutine flushes
// (an emitter, or the rate limiter's timer), still one call at a time and
// in emission order. ContextCap is the exception: the host emits it from
// its own goroutine when it learns the window size (SetContextWindow), so
// it may arrive while a turn's events do; a listener that keeps state must
// guard it.
type Listener interface {
	OnEvent(Event)
}

// Forker is implemented by listeners that behave differently for a child
// agent: Terminal indents one more level, TokenLog counts from zero.
// Listeners without it are shared by reference (Recorder, JSONL).
type Forker interface {
	ForSubAgent(id string) Listener
}

// Func adapts a function to Listener.
type Func func(Event)

// OnEvent calls f.
func (f Func) OnEvent(e Event) { f(e) }

// List fans an event out to its listeners in the order they were added.
type List struct {
	mu        sync.RWMutex
	id        string
	listeners []Listener
}

// NewList returns a list for the main agent (id "").
func NewList(ls ...Listener) *List { return &List{listeners: ls} }

// ID is the agent id this list speaks for.
func (l *List) ID() string { return l.id }

// Add appends a listener; safe while events flow.
func (l *List) Add(x Listener) {
	l.mu.Lock()
	l.listeners = append(l.listeners, x)
	l.mu.Unlock()
}

// Emit hands e to every listener.
func (l *List) Emit(e Event) {
	if l == nil {
		return
	}
	l.mu.RLock()
	ls := l.listeners
	l.mu.RUnlock()
	for _, x := range ls {
		x.OnEvent(e)
	}
}

// Warn emits a warning a person should see ("⚠ " and s), as a Notice:
// what a run says of itself (a server that failed, a hook's note).
func (l *List) Warn(s string) { l.Emit(Notice{Text: "⚠ " + s}) }

// SynthesizerID is the id of the synthesizer of the agent parent ("" is
// the main agent): its answer is that agent's answer.
func SynthesizerID(parent string) string {
	if parent == "" {
		return "synthesizer"
	}
	return parent + "_synthesizer"
}

// ForSubAgent returns the list a child agent (a synthesizer, a sub-agent)
// emits to: each Forker listener is forked, the rest are shared.
func (l *List) ForSubAgent(id string) *List {
	l.mu.RLock()
	defer l.mu.RUnlock()
	child := &List{id: id, listeners: make([]Listener, len(l.listeners))}
	for i, x := range l.listeners {
		if f, ok := x.(Forker); ok {
			child.listeners[i] = f.ForSubAgent(id)
		} else {
			child.listeners[i] = x
		}
	}
	return child
}
