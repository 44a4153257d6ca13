package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
)

// Loop is a run's turn loop: the one Driver every front end uses. It
// keeps what the person sent while a turn runs (injected into it, or
// queued for after it) by id, knows what the agent took, gives back what
// a turn never took, and starts the next turn.
//
// Two ways to drive it. A front end that only renders (the page of `chat
// serve`, an editor) sends text and the loop runs the turns: Send at
// idle, or RunTurns for one request. A front end whose lines may be its
// own commands (the REPL) starts each turn itself and says so (Began,
// Ended); what another front end sends at idle reaches it through
// Front.Start.
type Loop struct {
	in      *control.Interloper
	cancel  func(reason string)
	newTurn func(ctx context.Context, text string) *agent.Turn
	ctx     context.Context

	mu      sync.Mutex
	running bool
	items   []Pending
	seq     uint64
	watch   []func([]Pending)
	unsent  func([]string)
	front   Front
	idle    *sync.Cond
}

// Front is what a front end that starts its own turns gives the loop.
type Front struct {
	// Start runs text sent at idle (by another front end) as a turn.
	Start func(text string)
	// Stop cancels the running turn for reason, and shows it.
	Stop func(reason string)
}

// NewLoop is a loop over the Interloper in: cancel stops the running
// turn; newTurn makes the turns the loop runs itself (nil: the front end
// starts every turn).
func NewLoop(in *control.Interloper, cancel func(string), newTurn func(context.Context, string) *agent.Turn) *Loop {
	l := &Loop{in: in, cancel: cancel, newTurn: newTurn, ctx: context.Background()}
	l.idle = sync.NewCond(&l.mu)
	return l
}

// Loop is the run's turn loop.
func (r *Run) Loop() *Loop { return r.loop }

// SetFront makes the loop hand turns sent at idle, and stops, to a front
// end that starts its own turns.
func (l *Loop) SetFront(f Front) {
	l.mu.Lock()
	l.front = f
	l.mu.Unlock()
}

// SetContext is the context of the turns the loop starts itself (they
// end with it).
func (l *Loop) SetContext(ctx context.Context) {
	l.mu.Lock()
	l.ctx = ctx
	l.mu.Unlock()
}

var errEmpty = errors.New("the message is empty")

// ErrNoTurn: nothing runs to take the text.
var ErrNoTurn = errors.New("no turn is running")

// Send implements Driver: at idle text starts a turn; while one runs it
// is injected into it, or queued for after it.
func (l *Loop) Send(text string, queue bool) error {
	if strings.TrimSpace(text) == "" {
		return errEmpty
	}
	l.mu.Lock()
	if l.running {
		l.addLocked(text, !queue)
		l.mu.Unlock()
		return nil
	}
	front, ctx := l.front, l.ctx
	if front.Start != nil {
		l.mu.Unlock()
		front.Start(text)
		return nil
	}
	if l.newTurn == nil {
		l.mu.Unlock()
		return ErrNoTurn
	}
	l.running = true
	l.publishLocked()
	l.mu.Unlock()
	go l.RunTurns(ctx, l.newTurn(ctx, text), nil) // what it never took goes to OnUnsent
	return nil
}

// Add puts text on the pending list of the running turn: inject, into
// it; else after it. The REPL's typing while a turn runs.
func (l *Loop) Add(text string, inject bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addLocked(text, inject)
}

func (l *Loop) addLocked(text string, inject bool) {
	l.seq++
	p := Pending{ID: l.seq, Text: text, Inject: inject}
	if inject {
		p.Input = l.in.Push(text)
	}
	l.items = append(l.items, p)
	l.publishLocked()
}

// Steer injects text into the running turn; ErrNoTurn when none runs.
func (l *Loop) Steer(text string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.running {
		return ErrNoTurn
	}
	l.addLocked(text, true)
	return nil
}

// Stop implements Driver: the running turn is cancelled for reason (the
// session goes on).
func (l *Loop) Stop(reason string) {
	l.mu.Lock()
	running, front := l.running, l.front
	l.mu.Unlock()
	switch {
	case front.Stop != nil:
		if running {
			front.Stop(reason)
		}
	default:
		l.cancel(reason) // no turn: nothing (a later one is not touched)
	}
}

// Began says the front end started a turn.
func (l *Loop) Began() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.running {
		l.running = true
		l.publishLocked()
	}
}

// Ended says the turn the front end started has ended (or was
// cancelled): what it never took comes back, in the order it was sent,
// to start the next turn or, after a cancel, to go back to the person.
func (l *Loop) Ended() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	left := l.leftoversLocked()
	l.idleLocked()
	return left
}

// idleLocked says no turn runs any more: the watchers hear it, Wait
// returns.
func (l *Loop) idleLocked() {
	l.running = false
	l.publishLocked()
	l.idle.Broadcast()
}

func (l *Loop) leftoversLocked() []string {
	sent := make([]Sent, len(l.items))
	for i, p := range l.items {
		sent[i] = Sent{Text: p.Text, Inject: p.Inject, ID: p.Input}
	}
	l.items = nil
	return Leftovers(l.in, sent)
}

// RunTurns runs t and, while it ends well, a turn for what was sent too
// late for it; next is told each such text as its turn starts. It returns
// the last outcome and what no turn took (after a failure or a cancel).
func (l *Loop) RunTurns(ctx context.Context, t *agent.Turn, next func(text string)) (agent.Outcome, []string) {
	l.Began()
	for {
		out := t.Run()
		l.mu.Lock()
		left := l.leftoversLocked()
		if out.Err != nil || len(left) == 0 || ctx.Err() != nil || l.newTurn == nil {
			if len(left) > 0 && l.unsent != nil {
				l.unsent(left) // before idle: the page has it back first
			}
			l.idleLocked()
			l.mu.Unlock()
			return out, left
		}
		for _, more := range left[1:] {
			l.addLocked(more, true)
		}
		l.mu.Unlock()
		if next != nil {
			next(left[0])
		}
		t = l.newTurn(ctx, left[0])
	}
}

// Wait returns once no turn runs.
func (l *Loop) Wait() {
	l.mu.Lock()
	for l.running {
		l.idle.Wait()
	}
	l.mu.Unlock()
}

// Running implements Driver.
func (l *Loop) Running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running
}

// Pending implements Driver.
func (l *Loop) Pending() []Pending {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// OnPending implements Driver: f hears the pending list whenever it, or
// whether a turn runs, changes. Several may listen (the REPL and its
// page).
func (l *Loop) OnPending(f func([]Pending)) {
	l.mu.Lock()
	l.watch = append(l.watch, f)
	l.mu.Unlock()
}

// OnUnsent is told what the turns never took, once they failed or were
// stopped (the page puts it back in its input); like OnPending's, f must
// neither block nor call the loop.
func (l *Loop) OnUnsent(f func([]string)) {
	l.mu.Lock()
	l.unsent = f
	l.mu.Unlock()
}

// publishLocked tells the watchers; they must neither block nor call
// the loop (the page's publishes to its stream).
func (l *Loop) publishLocked() {
	items := slices.Clone(l.items)
	for _, f := range l.watch {
		f(items)
	}
}

// Edit implements Driver: "" removes the item; ErrTaken when the turn
// took it already.
func (l *Loop) Edit(id uint64, text string) error {
	if text == "" {
		return l.Remove(id)
	}
	return l.change(id, func(p *Pending) bool {
		if p.Inject {
			if !l.in.Retract(p.Input) {
				return false
			}
			p.Input = l.in.Push(text)
		}
		p.Text = text
		return true
	}, false)
}

// Remove implements Driver.
func (l *Loop) Remove(id uint64) error {
	return l.change(id, func(p *Pending) bool { return !p.Inject || l.in.Retract(p.Input) }, true)
}

func (l *Loop) change(id uint64, edit func(*Pending) bool, remove bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.items, func(p Pending) bool { return p.ID == id })
	if i < 0 {
		return ErrTaken
	}
	if !edit(&l.items[i]) {
		// The turn took it: it is in the history, and leaves the list.
		l.items = slices.Delete(l.items, i, i+1)
		l.publishLocked()
		return ErrTaken
	}
	if remove {
		l.items = slices.Delete(l.items, i, i+1)
	}
	l.publishLocked()
	return nil
}

// TakeNewest removes the newest item the turn has not taken and returns
// it (the REPL's ↑ edits it); one the agent took is skipped.
func (l *Loop) TakeNewest() (Pending, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.publishLocked()
	for len(l.items) > 0 {
		i := len(l.items) - 1
		p := l.items[i]
		l.items = l.items[:i]
		if !p.Inject || l.in.Retract(p.Input) {
			return p, true
		}
	}
	return Pending{}, false
}

// OnEvent implements listener.Listener: an injected item the turn took
// leaves the pending list.
func (l *Loop) OnEvent(e listener.Event) {
	if u, ok := e.(listener.UserTurn); ok && u.Input != 0 {
		l.Delivered(u.Input)
	}
}

// Delivered drops the injected item the agent put into the history
// (input is its Interloper id).
func (l *Loop) Delivered(input uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.IndexFunc(l.items, func(p Pending) bool { return p.Inject && p.Input == input }); i >= 0 {
		l.items = slices.Delete(l.items, i, i+1)
		l.publishLocked()
	}
}
