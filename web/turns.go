package web

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
)

// turns is the page's own driver: one turn at a time on the run, and
// what was sent during it injected or queued, as in the REPL.
type turns struct {
	run    *app.Run
	stream *Stream
	ctx    context.Context

	mu      sync.Mutex
	running bool
	items   []app.Pending
	notify  func([]app.Pending)
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
	p := app.Pending{ID: t.next, Text: text, Inject: !queue}
	if p.Inject {
		p.Input = t.run.Interloper().Push(text)
	}
	t.items = append(t.items, p)
	t.publishLocked()
	return nil
}

func (t *turns) publishLocked() {
	if t.notify != nil {
		t.notify(slices.Clone(t.items))
	}
}

// OnPending implements app.Driver.
func (t *turns) OnPending(f func([]app.Pending)) {
	t.mu.Lock()
	t.notify = f
	t.mu.Unlock()
}

// OnEvent implements listener.Listener: an injected item the turn took
// leaves the pending list.
func (t *turns) OnEvent(e listener.Event) {
	u, ok := e.(listener.UserTurn)
	if !ok || u.Input == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.IndexFunc(t.items, func(p app.Pending) bool { return p.Inject && p.Input == u.Input }); i >= 0 {
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
			sent[i] = app.Sent{Text: p.Text, Inject: p.Inject, ID: p.Input}
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
			t.items = append(t.items, app.Pending{ID: t.next, Text: more, Inject: true, Input: t.run.Interloper().Push(more)})
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

func (t *turns) Pending() []app.Pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.items)
}

func (t *turns) Edit(id uint64, text string) error {
	if text == "" {
		return t.Remove(id)
	}
	return t.change(id, func(p *app.Pending) bool {
		if p.Inject {
			if !t.run.Interloper().Retract(p.Input) {
				return false
			}
			p.Input = t.run.Interloper().Push(text)
		}
		p.Text = text
		return true
	}, false)
}

func (t *turns) Remove(id uint64) error {
	return t.change(id, func(p *app.Pending) bool {
		return !p.Inject || t.run.Interloper().Retract(p.Input)
	}, true)
}

func (t *turns) change(id uint64, edit func(*app.Pending) bool, remove bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.IndexFunc(t.items, func(p app.Pending) bool { return p.ID == id })
	if i < 0 || !edit(&t.items[i]) {
		return app.ErrTaken
	}
	if remove {
		t.items = slices.Delete(t.items, i, i+1)
	}
	t.publishLocked()
	return nil
}
