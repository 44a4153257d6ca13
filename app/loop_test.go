package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
)

// frontEnd is a front end as the loop sees it: what it was shown.
type frontEnd struct {
	mu      sync.Mutex
	pending [][]Pending
	unsent  [][]string
}

func (f *frontEnd) watch(l *Loop) {
	l.OnPending(func(p []Pending) {
		f.mu.Lock()
		f.pending = append(f.pending, p)
		f.mu.Unlock()
	})
	l.OnUnsent(func(s []string) {
		f.mu.Lock()
		f.unsent = append(f.unsent, s)
		f.mu.Unlock()
	})
}

func (f *frontEnd) lastUnsent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.unsent) == 0 {
		return nil
	}
	return f.unsent[len(f.unsent)-1]
}

// heldServer answers each question with its text, the first only once
// released.
func heldServer(t *testing.T) (*oaitest.Server, *oaitest.Gate) {
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer", Gate: gate, GateAfter: 1})
	srv.SetFallback(oaitest.Echoer{}.Reply)
	return srv, gate
}

// openClosed is open, closed when the test ends.
func openClosed(t *testing.T, spec Spec) *Run {
	r := open(t, spec)
	t.Cleanup(func() { r.Close() })
	return r
}

// userTexts are the questions the session holds.
func userTexts(r *Run) []string {
	var out []string
	for _, m := range r.Session().Messages() {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestLoopRunsWhatIsSentDuringATurn: text sent at idle starts a turn; an
// injected line joins it, a queued one runs after it; the pending list
// shows both until taken.
func TestLoopRunsWhatIsSentDuringATurn(t *testing.T) {
	srv, gate := heldServer(t)
	m := newMachine(t)
	r := openClosed(t, m.spec(srv))
	l := r.Loop()
	var f frontEnd
	f.watch(l)
	if err := l.Send("  ", false); err == nil {
		t.Fatal("an empty message was sent")
	}
	if err := l.Send("first", false); err != nil {
		t.Fatal(err)
	}
	<-gate.Entered()
	if !l.Running() {
		t.Fatal("no turn runs")
	}
	_ = l.Send("inject me", false)
	_ = l.Send("after it", true)
	if p := l.Pending(); len(p) != 2 || !p[0].Inject || p[1].Inject || p[0].Text != "inject me" {
		t.Fatalf("pending %+v", p)
	}
	gate.Release()
	l.Wait()
	if got := strings.Join(userTexts(r), "|"); got != "first|inject me|after it" {
		t.Fatalf("the session asked %q", got)
	}
	if len(l.Pending()) != 0 || len(f.lastUnsent()) != 0 {
		t.Fatalf("left over: %+v, unsent %q", l.Pending(), f.lastUnsent())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) < 3 {
		t.Fatalf("the front end heard %d changes", len(f.pending))
	}
}

// TestLoopStopGivesBackWhatWasNotTaken: a stopped turn gives back what it
// never took, in the order sent, and the next Send starts afresh.
func TestLoopStopGivesBackWhatWasNotTaken(t *testing.T) {
	srv, gate := heldServer(t)
	m := newMachine(t)
	r := openClosed(t, m.spec(srv))
	l := r.Loop()
	var f frontEnd
	f.watch(l)
	_ = l.Send("first", false)
	<-gate.Entered()
	_ = l.Send("queued one", true)
	_ = l.Send("injected one", false)
	l.Stop("stopped in the browser")
	l.Wait()
	if got := f.lastUnsent(); !slices.Equal(got, []string{"queued one", "injected one"}) {
		t.Fatalf("unsent %q", got)
	}
	if l.Running() || len(l.Pending()) != 0 {
		t.Fatal("the loop still holds the turn")
	}
}

// TestLoopEditsOnlyWhatIsNotTaken: an item the turn took cannot be edited
// or taken back; one still waiting can be, and ↑ takes the newest.
func TestLoopEditsOnlyWhatIsNotTaken(t *testing.T) {
	in := control.NewInterloper()
	var cancelled string
	l := NewLoop(in, func(reason string) { cancelled = reason }, nil)
	l.Began()
	l.Add("one", true)
	l.Add("two", true)
	l.Add("three", false)
	p := l.Pending()
	taken := in.Drain() // the agent takes "one" and "two"
	if len(taken) != 2 {
		t.Fatalf("the interloper held %d", len(taken))
	}
	if err := l.Edit(p[0].ID, "changed"); !errors.Is(err, ErrTaken) {
		t.Fatalf("a taken line was edited: %v", err)
	}
	if err := l.Remove(p[1].ID); !errors.Is(err, ErrTaken) {
		t.Fatalf("a taken line was removed: %v", err)
	}
	if err := l.Edit(p[2].ID, "three, changed"); err != nil {
		t.Fatal(err)
	}
	if got, ok := l.TakeNewest(); !ok || got.Text != "three, changed" {
		t.Fatalf("newest %+v %v", got, ok)
	}
	l.Add("four", true)
	l.Delivered(in.Drain()[0].ID)
	l.Add("five", true)
	in.Drain() // taken, its delivery not yet heard
	if p, ok := l.TakeNewest(); ok || len(l.Pending()) != 0 {
		t.Fatalf("a taken line came back: %+v, left %+v", p, l.Pending())
	}
	l.Stop("cancelled at the keyboard")
	if cancelled != "cancelled at the keyboard" {
		t.Fatalf("cancel said %q", cancelled)
	}
	if left := l.Ended(); len(left) != 0 || l.Running() {
		t.Fatalf("left %q", left)
	}
}

// TestLoopHandsIdleTextToItsFrontEnd: a front end that starts its own
// turns gets what another sends at idle, and the Stop, and nothing runs
// behind its back.
func TestLoopHandsIdleTextToItsFrontEnd(t *testing.T) {
	l := NewLoop(control.NewInterloper(), func(string) { t.Fatal("the loop cancelled by itself") }, nil)
	if err := l.Send("hello", false); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("with nobody to run it: %v", err)
	}
	var started, stopped []string
	l.SetFront(Front{Start: func(s string) { started = append(started, s) }, Stop: func(s string) { stopped = append(stopped, s) }})
	_ = l.Send("hello", false)
	l.Stop("at idle") // nothing runs: nothing to stop
	l.Began()
	_ = l.Send("more", false)
	l.Stop("stopped in the browser")
	if !slices.Equal(started, []string{"hello"}) || !slices.Equal(stopped, []string{"stopped in the browser"}) {
		t.Fatalf("started %q stopped %q", started, stopped)
	}
	if left := l.Ended(); !slices.Equal(left, []string{"more"}) {
		t.Fatalf("left %q", left)
	}
	if err := l.Steer("late"); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("steered with no turn: %v", err)
	}
}

// TestRunTurnsTakesLateSteering: text steered in after the turn's last
// look runs in the same request, as its own turn, and is announced.
func TestRunTurnsTakesLateSteering(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	spec := m.spec(srv)
	var l *Loop
	var once sync.Once
	spec.Listeners.Add(listener.Func(func(e listener.Event) {
		// The first turn is done: the agent looks no more.
		if d, ok := e.(listener.TurnDone); ok && d.Agent == "" {
			once.Do(func() {
				if err := l.Steer("steered late"); err != nil {
					t.Error(err)
				}
			})
		}
	}))
	r := openClosed(t, spec)
	l = r.Loop()
	var announced []string
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, unsent := l.RunTurns(ctx, r.NewTurn(ctx, "first"), func(s string) { announced = append(announced, s) })
	if out.Err != nil || len(unsent) != 0 || !slices.Equal(announced, []string{"steered late"}) {
		t.Fatalf("%v, unsent %q, announced %q", out.Err, unsent, announced)
	}
	if got := strings.Join(userTexts(r), "|"); got != "first|steered late" {
		t.Fatalf("the session asked %q", got)
	}
}

// TestTextSentIntoATurnIsPartOfIt: what the person sends while a turn
// runs is kept as part of that turn: the timeline, /rewind's rows and
// /undo see one turn, not two.
func TestTextSentIntoATurnIsPartOfIt(t *testing.T) {
	srv := oaitest.New(t)
	var l *Loop
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if req.Index == 0 {
			if err := l.Steer("also say hello"); err != nil {
				t.Error(err)
			}
			return write("a.txt", "one\n")
		}
		return oaitest.Echoer{}.Reply(req)
	})
	m := newMachine(t)
	r := openClosed(t, m.spec(srv))
	l = r.Loop()
	ctx := context.Background()
	if out, _ := l.RunTurns(ctx, r.NewTurn(ctx, "write a.txt"), nil); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := strings.Join(userTexts(r), "|"); got != "write a.txt|also say hello" {
		t.Fatalf("the session holds %q", got)
	}
	turns, err := r.Timeline()
	if err != nil || len(turns) != 1 || turns[0].Question != "write a.txt" || len(turns[0].Changes) != 1 {
		t.Fatalf("timeline %+v %v", turns, err)
	}
	q, err := r.Edits().DropLastExchange()
	if err != nil || q.Content != "write a.txt" || len(userTexts(r)) != 0 {
		t.Fatalf("undo took %q (%v), left %q", q.Content, err, userTexts(r))
	}
}
