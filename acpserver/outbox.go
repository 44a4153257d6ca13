package acpserver

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/coder/acp-go-sdk"
)

// outbox sends a session's updates in order from a goroutine of its own,
// so a slow editor never stalls the agent (listeners must return at
// once). Text chunks that wait behind a slow write are joined, and a
// call's running output keeps only its latest state: a fast stream costs
// the editor what it can take, and loses nothing.
type outbox struct {
	ctx       context.Context
	conn      *acp.AgentSideConnection
	sessionID acp.SessionId

	mu      sync.Mutex
	queue   []update
	held    bool // until the client knows the session
	sending bool
	stopped bool
	wake    chan struct{}
	idle    *sync.Cond
	done    chan struct{} // closed when run returns
}

// update is one session/update; key, when set, lets a later update of
// the same key replace it while it waits.
type update struct {
	u   acp.SessionUpdate
	key string
}

func newOutbox(ctx context.Context, conn *acp.AgentSideConnection) *outbox {
	o := &outbox{ctx: ctx, conn: conn, held: true, wake: make(chan struct{}, 1), done: make(chan struct{})}
	o.idle = sync.NewCond(&o.mu)
	go o.run()
	return o
}

func (o *outbox) push(u update) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	// The head of the queue may be on its way out: it is not touched.
	if n := len(o.queue); n > 1 || n == 1 && !o.sending {
		if joinChunks(&o.queue[n-1], u) {
			return
		}
	}
	if u.key != "" {
		for i := range o.queue {
			if o.queue[i].key == u.key && (i > 0 || !o.sending) {
				o.queue[i] = u
				return
			}
		}
	}
	o.queue = append(o.queue, u)
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// joinChunks appends u's text to last when both are text chunks of the
// same kind.
func joinChunks(last *update, u update) bool {
	switch {
	case last.u.AgentMessageChunk != nil && u.u.AgentMessageChunk != nil:
		a, b := last.u.AgentMessageChunk.Content.Text, u.u.AgentMessageChunk.Content.Text
		if a == nil || b == nil {
			return false
		}
		last.u = acp.UpdateAgentMessageText(a.Text + b.Text)
		return true
	case last.u.AgentThoughtChunk != nil && u.u.AgentThoughtChunk != nil:
		a, b := last.u.AgentThoughtChunk.Content.Text, u.u.AgentThoughtChunk.Content.Text
		if a == nil || b == nil {
			return false
		}
		last.u = acp.UpdateAgentThoughtText(a.Text + b.Text)
		return true
	}
	return false
}

// release starts sending.
func (o *outbox) release() {
	o.mu.Lock()
	o.held = false
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// flush waits until everything pushed so far was written (or the
// connection ended).
func (o *outbox) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for (len(o.queue) > 0 || o.sending) && !o.stopped && !o.held {
		o.idle.Wait()
	}
}

func (o *outbox) stop() {
	o.mu.Lock()
	o.stopped = true
	o.queue = nil
	o.idle.Broadcast()
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *outbox) run() {
	defer close(o.done)
	for {
		select {
		case <-o.wake:
		case <-o.ctx.Done():
			o.stop()
			return
		}
		for {
			o.mu.Lock()
			if o.stopped {
				o.mu.Unlock()
				return
			}
			if o.held || len(o.queue) == 0 {
				o.idle.Broadcast()
				o.mu.Unlock()
				break
			}
			o.sending = true
			u := o.queue[0]
			o.mu.Unlock()
			err := o.conn.SessionUpdate(o.ctx, acp.SessionNotification{SessionId: o.sessionID, Update: u.u})
			o.mu.Lock()
			o.sending = false
			if o.stopped { // stop emptied the queue while this one was sent
				o.idle.Broadcast()
				o.mu.Unlock()
				return
			}
			o.queue = o.queue[1:]
			if err != nil {
				o.stopped = true // the connection is gone
			}
			o.mu.Unlock()
		}
	}
}

// announcer is the connection's writer: it runs a callback once the
// answer that tells the client about a session has been written, so what
// follows (the session's commands) never arrives before the session.
type announcer struct {
	w io.Writer

	mu      sync.Mutex
	waiting map[string]func()
}

func (a *announcer) after(sessionID string, f func()) {
	a.mu.Lock()
	if a.waiting == nil {
		a.waiting = map[string]func(){}
	}
	a.waiting[sessionID] = f
	a.mu.Unlock()
}

// Write is called once per message, whole.
func (a *announcer) Write(b []byte) (int, error) {
	n, err := a.w.Write(b)
	a.mu.Lock()
	var run []func()
	if len(a.waiting) > 0 && !bytes.Contains(b, []byte(`"method":`)) {
		for id, f := range a.waiting {
			if bytes.Contains(b, []byte(`"result"`)) && bytes.Contains(b, []byte(`"sessionId":"`+id+`"`)) {
				run = append(run, f)
				delete(a.waiting, id)
			}
		}
	}
	a.mu.Unlock()
	for _, f := range run {
		f()
	}
	return n, err
}
