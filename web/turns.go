package web

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
)

// Driver is who starts turns: the page's own loop (chat serve), or the
// REPL's when the page shares a live terminal session (/serve). Text
// sent while a turn runs is injected into it (queue: kept for after it).
type Driver interface {
	Send(text string, queue bool) error
	Stop()
	// Pending is what was sent and not yet taken, in order.
	Pending() []Pending
	Edit(id uint64, text string) error
	Remove(id uint64) error
	Running() bool
}

// Pending is text the person sent that no turn has taken yet.
type Pending struct {
	ID     uint64 `json:"id"`
	Text   string `json:"text"`
	Inject bool   `json:"inject"` // for the running turn (else after it)
	input  uint64 // its Interloper item
}

// turns is the page's own driver: one turn at a time on the run, and
// what was sent during it injected or queued, as in the REPL.
type turns struct {
	run    *app.Run
	stream *Stream
	ctx    context.Context

	mu      sync.Mutex
	running bool
	items   []Pending
	next    uint64
	idle    *sync.Cond
}

func newTurns(ctx context.Context, run *app.Run, stream *Stream) *turns {
	t := &turns{run: run, stream: stream, ctx: ctx}
	t.idle = sync.NewCond(&t.mu)
	return t
}

var errEmpty = errors.New("the message is empty")

func (t *turns) Send(text string, queue bool) error {
	if text == "" {
		return errEmpty
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running {
		t.running = true
		go t.loop(text)
		return nil
	}
	t.next++
	p := Pending{ID: t.next, Text: text, Inject: !queue}
	if p.Inject {
		p.input = t.run.Interloper().Push(text)
	}
	t.items = append(t.items, p)
	t.publishLocked()
	return nil
}

func (t *turns) publishLocked() { t.stream.Publish("pending", slices.Clone(t.items)) }

// OnEvent implements listener.Listener: an injected item the turn took
// leaves the pending list.
func (t *turns) OnEvent(e listener.Event) {
	u, ok := e.(listener.UserTurn)
	if !ok || u.Input == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.IndexFunc(t.items, func(p Pending) bool { return p.Inject && p.input == u.Input }); i >= 0 {
		t.items = slices.Delete(t.items, i, i+1)
		t.publishLocked()
	}
}

func (t *turns) loop(text string) {
	for {
		out := t.run.NewTurn(t.ctx, text).Run()
		t.mu.Lock()
		sent := make([]app.Sent, len(t.items))
		for i, p := range t.items {
			sent[i] = app.Sent{Text: p.Text, Inject: p.Inject, ID: p.input}
		}
		left := app.Leftovers(t.run.Interloper(), sent)
		t.items = nil
		if out.Err != nil || len(left) == 0 || t.ctx.Err() != nil {
			t.running = false
			t.publishLocked()
			if len(left) > 0 {
				// A stopped or failed turn gives back what it never took,
				// as the REPL puts it back into the input.
				t.stream.Publish("unsent", left)
			}
			t.idle.Broadcast()
			t.mu.Unlock()
			return
		}
		text = left[0]
		for _, more := range left[1:] {
			t.next++
			t.items = append(t.items, Pending{ID: t.next, Text: more, Inject: true, input: t.run.Interloper().Push(more)})
		}
		t.publishLocked()
		t.mu.Unlock()
	}
}

func (t *turns) Stop() {
	if t.Running() {
		t.run.Agent().Cancel("stopped in the browser")
	}
}

func (t *turns) Running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}

// wait returns once no turn runs.
func (t *turns) wait() {
	t.mu.Lock()
	for t.running {
		t.idle.Wait()
	}
	t.mu.Unlock()
}

func (t *turns) Pending() []Pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.items)
}

var errTaken = errors.New("the turn has already taken it")

func (t *turns) Edit(id uint64, text string) error {
	if text == "" {
		return t.Remove(id)
	}
	return t.change(id, func(p *Pending) bool {
		if p.Inject {
			if !t.run.Interloper().Retract(p.input) {
				return false
			}
			p.input = t.run.Interloper().Push(text)
		}
		p.Text = text
		return true
	}, false)
}

func (t *turns) Remove(id uint64) error {
	return t.change(id, func(p *Pending) bool {
		return !p.Inject || t.run.Interloper().Retract(p.input)
	}, true)
}

func (t *turns) change(id uint64, edit func(*Pending) bool, remove bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.IndexFunc(t.items, func(p Pending) bool { return p.ID == id })
	if i < 0 || !edit(&t.items[i]) {
		return errTaken
	}
	if remove {
		t.items = slices.Delete(t.items, i, i+1)
	}
	t.publishLocked()
	return nil
}
