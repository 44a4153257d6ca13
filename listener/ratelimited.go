package listener

import (
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/textbuf"
)

// RateLimited wraps a listener that is slow to redraw (a screen) and hands
// it streamed deltas at most PerSecond times a second. Adjacent deltas of
// the same kind from the same agent are joined; nothing is dropped and
// nothing is reordered: any other event first flushes what waits, then is
// delivered at once. Forks share one queue, so order holds across a tree.
type RateLimited struct {
	core  *rateCore
	inner Listener
	// key identifies this view in the queue; listeners need not be comparable.
	key *byte
}

type rateCore struct {
	interval time.Duration

	flushMu sync.Mutex // held while delivering, so flushes never interleave

	mu        sync.Mutex
	queue     []queued
	lastFlush time.Time
	timer     *time.Timer
}

type queued struct {
	key *byte
	to  Listener
	ev  Event
	// text collects the joined deltas; a builder, because joining by
	// string concatenation would copy the frame's text once per delta.
	text *textbuf.Builder
}

// NewRateLimited delivers to inner at most perSecond flushes a second.
func NewRateLimited(inner Listener, perSecond int) *RateLimited {
	if perSecond <= 0 {
		perSecond = 60
	}
	return &RateLimited{core: &rateCore{interval: time.Second / time.Duration(perSecond)}, inner: inner, key: new(byte)}
}

// ForSubAgent implements Forker.
func (r *RateLimited) ForSubAgent(id string) Listener {
	inner := r.inner
	if f, ok := inner.(Forker); ok {
		inner = f.ForSubAgent(id)
	}
	return &RateLimited{core: r.core, inner: inner, key: new(byte)}
}

// OnEvent implements Listener.
func (r *RateLimited) OnEvent(e Event) {
	c := r.core
	c.mu.Lock()
	if !c.coalesce(r.key, e) {
		c.queue = append(c.queue, queued{key: r.key, to: r.inner, ev: e})
	}
	switch e.(type) {
	case AssistantDelta, ThinkingDelta, ToolOutput:
		if wait := c.interval - time.Since(c.lastFlush); wait > 0 {
			if c.timer == nil {
				c.timer = time.AfterFunc(wait, c.flush)
			}
			c.mu.Unlock()
			return
		}
	}
	c.mu.Unlock()
	c.flush()
}

// Flush delivers whatever waits, now.
func (r *RateLimited) Flush() { r.core.flush() }

// coalesce joins e onto the last queued delta when they are of a kind; mu held.
func (c *rateCore) coalesce(key *byte, e Event) bool {
	if len(c.queue) == 0 {
		return false
	}
	last := &c.queue[len(c.queue)-1]
	if last.key != key || last.ev.Kind() != e.Kind() || last.ev.Source() != e.Source() {
		return false
	}
	var text, first string
	switch d := e.(type) {
	case AssistantDelta:
		text, first = d.Text, last.ev.(AssistantDelta).Text
	case ThinkingDelta:
		text, first = d.Text, last.ev.(ThinkingDelta).Text
	case ToolOutput:
		p := last.ev.(ToolOutput)
		if p.ID != d.ID {
			return false
		}
		text, first = d.Text, p.Text
	default:
		return false
	}
	if last.text == nil {
		last.text = &textbuf.Builder{}
		last.text.WriteString(first)
	}
	last.text.WriteString(text)
	// A command may print gigabytes faster than a screen takes them: of
	// its output only the latest part is kept for display (the tool's
	// result keeps its own head and tail).
	if _, ok := e.(ToolOutput); ok && last.text.Len() > maxToolOutputQueued {
		keep := last.text.String()[last.text.Len()-maxToolOutputQueued/2:]
		last.text = &textbuf.Builder{}
		last.text.WriteString(keep)
	}
	return true
}

// maxToolOutputQueued bounds the tool output waiting for one delivery.
const maxToolOutputQueued = 256 << 10

// event is the queued event with its joined text.
func (q queued) event() Event {
	if q.text == nil {
		return q.ev
	}
	switch d := q.ev.(type) {
	case AssistantDelta:
		d.Text = q.text.String()
		return d
	case ThinkingDelta:
		d.Text = q.text.String()
		return d
	case ToolOutput:
		d.Text = q.text.String()
		return d
	}
	return q.ev
}

func (c *rateCore) flush() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	q := c.queue
	c.queue = nil
	c.lastFlush = time.Now()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	for _, x := range q {
		x.to.OnEvent(x.event())
	}
}
