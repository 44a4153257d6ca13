package app

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm/emit"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/synthesizer"
)

// titleWait bounds the request for a title: it runs behind the person's
// next turn and must never hang around.
const titleWait = time.Minute

// titler names a saved session once its first turn is answered: one
// request to small_model (else the model), behind, after the turn ended.
// A session with a title (or one that is not saved) is left alone; a
// failed request leaves the first question as the name, said nowhere
// (nothing the person asked for failed).
type titler struct {
	run *Run

	mu     sync.Mutex
	asked  map[string]bool // sessions asked for, by id
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// OnEvent implements listener.Listener.
func (t *titler) OnEvent(e listener.Event) {
	done, ok := e.(listener.TurnDone)
	if !ok || done.Agent != "" {
		return
	}
	r := t.run
	id := r.host.id()
	if id == "" || r.host.title() != "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.asked[id] {
		return // asked once (a failed request is not asked again at every turn)
	}
	question, answer, ok := firstExchange(r.Session().Messages())
	if !ok {
		return
	}
	if t.asked == nil {
		t.asked = map[string]bool{}
	}
	t.asked[id] = true
	ctx, cancel := context.WithTimeout(context.Background(), titleWait)
	prev := t.cancel
	t.cancel = cancel
	if prev != nil {
		prev()
	}
	sess := r.Session()
	model := cmp.Or(r.cfg.SmallModel, r.Model())
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		defer cancel()
		title, used, err := synthesizer.Title(ctx, Client(r.cfg, ""), model, question, answer)
		ls := r.spec.Listeners
		if used.Total > 0 {
			price := PriceOf(r.cfg)
			emit.Usage(ls, listener.Origin{Agent: listener.SynthesizerID(""), Turn: done.Turn}, model, used,
				func(u session.Usage) (float64, bool) { return price(model, u) })
		}
		if err != nil || ctx.Err() != nil {
			return
		}
		if r.host.setTitle(id, title, sess) {
			ls.Emit(listener.Titled{Title: title})
		}
	}()
}

// stop ends a title request still running and waits for it.
func (t *titler) stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	if t.cancel != nil {
		t.cancel()
	}
	t.mu.Unlock()
	t.done.Wait()
}

// firstExchange is the session's first question of the person's and the
// first answer to it; ok false until both are there.
func firstExchange(msgs []session.Message) (question, answer string, ok bool) {
	for _, m := range msgs {
		switch {
		case m.Role == session.RoleUser && question == "" && !m.Unanswered:
			question = m.Content
		case m.Role == session.RoleAssistant && question != "" && m.Content != "":
			return question, m.Content, true
		}
	}
	return "", "", false
}

// Title is the session's name: the title a model wrote, else its first
// question (cut).
func (r *Run) Title() string {
	if t := r.host.title(); t != "" {
		return t
	}
	for _, m := range r.Session().Messages() {
		if m.Role == session.RoleUser {
			return session.Title(m.Content)
		}
	}
	return ""
}
