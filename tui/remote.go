package tui

import (
	"errors"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// remote is the REPL as the app.Driver of a page on the same session
// (/serve): what the page sends goes through the program's loop as if it
// were typed, and the page sees the pending list the REPL shows.
type remote struct {
	send func(tea.Msg)

	mu      sync.Mutex
	running bool
	items   []app.Pending
	notify  func([]app.Pending)
}

type (
	remoteSendMsg struct {
		text  string
		queue bool
	}
	remoteStopMsg struct{}
	remoteEditMsg struct {
		id    uint64
		text  string
		reply chan error
	}
	// withdrawnMsg: another front end answered the question on screen.
	withdrawnMsg struct {
		reply chan<- tool.Decision
		said  *tool.AnsweredElsewhere
	}
)

func (r *remote) Send(text string, queue bool) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("the message is empty")
	}
	r.send(remoteSendMsg{text: text, queue: queue})
	return nil
}

func (r *remote) Stop() { r.send(remoteStopMsg{}) }

func (r *remote) Edit(id uint64, text string) error {
	reply := make(chan error, 1)
	r.send(remoteEditMsg{id: id, text: text, reply: reply})
	return <-reply
}

func (r *remote) Remove(id uint64) error { return r.Edit(id, "") }

func (r *remote) Pending() []app.Pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.items)
}

func (r *remote) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

func (r *remote) OnPending(f func([]app.Pending)) {
	r.mu.Lock()
	r.notify = f
	r.mu.Unlock()
}

// sync tells the page what changed, after each update of the model.
func (r *remote) sync(running bool, items []app.Pending) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if running == r.running && slices.Equal(items, r.items) {
		return
	}
	r.running, r.items = running, items
	if r.notify != nil {
		r.notify(slices.Clone(items))
	}
}

// onRemote handles what the page sent.
func (m *Model) onRemote(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case remoteSendMsg:
		switch {
		case m.busy && msg.queue:
			m.pending.queue(msg.text)
		case m.busy:
			m.pending.inject(msg.text)
		default:
			return m.startTurn(msg.text)
		}
	case remoteStopMsg:
		if m.busy {
			return m.cancelBecause("stopped in the browser")
		}
	case remoteEditMsg:
		if m.pending.edit(msg.id, msg.text) {
			msg.reply <- nil
		} else {
			msg.reply <- app.ErrTaken
		}
	case withdrawnMsg:
		a := m.asking
		if a == nil || a.reply != msg.reply {
			return nil
		}
		m.asking = nil
		m.live.state = "running"
		m.notice = ""
		m.print(m.noticeBlock(m.st.notice, "  "+listener.VisibleString(a.req.Review.Summary+": "+msg.said.Said+" ("+msg.said.Where+")")))
	}
	return nil
}

type sharedMsg struct {
	url string
	err error
}

// share puts the session on a web page (/serve) and says where.
func (m *Model) share() tea.Cmd {
	if m.opts.Share == nil || m.remote == nil {
		m.notice = "/serve is not available here"
		return nil
	}
	share, r := m.opts.Share, m.remote
	return func() tea.Msg {
		url, err := share(r)
		return sharedMsg{url, err}
	}
}

func (m *Model) onShared(msg sharedMsg) {
	if msg.err != nil {
		m.print(m.noticeBlock(m.st.err, "✗ /serve: "+listener.VisibleString(msg.err.Error())))
		return
	}
	// The address is never wrapped: a line break inside it would break
	// copying it (the terminal folds a long line softly).
	m.print(m.noticeBlock(m.st.notice, "this session is on a web page (it and this terminal steer the same turns):") + "\n" + m.st.notice.Render(msg.url))
}
