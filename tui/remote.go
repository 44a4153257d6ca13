package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

type (
	// remoteSendMsg: another front end sent text at idle (the loop's
	// Front.Start); remoteStopMsg: it stopped the turn.
	remoteSendMsg struct{ text string }
	remoteStopMsg struct{ reason string }
	// withdrawnMsg: another front end answered the question on screen.
	withdrawnMsg struct {
		reply chan<- tool.Decision
		said  *tool.AnsweredElsewhere
	}
)

// onRemote handles what the page sent.
func (m *Model) onRemote(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case remoteSendMsg:
		if m.busy { // a turn started since: the text joins it
			m.loop.Add(msg.text, true)
			return nil
		}
		return m.startTurn(msg.text)
	case remoteStopMsg:
		if m.busy {
			return m.cancelBecause(msg.reason)
		}
	case withdrawnMsg:
		a := m.asking
		if a == nil || a.reply != msg.reply {
			return nil
		}
		m.asking = nil
		m.live.state = "running"
		m.notice = ""
		m.print(m.blocks().notice(m.st.notice, "  "+listener.VisibleString(a.req.Review.Summary+": "+msg.said.Said+" ("+msg.said.Where+")")))
	}
	return nil
}

type sharedMsg struct {
	url string
	err error
}

// share puts the session on a web page (/serve) and says where.
func (m *Model) share() tea.Cmd {
	if m.opts.Share == nil {
		m.notice = "/serve is not available here"
		return nil
	}
	share := m.opts.Share
	return func() tea.Msg {
		url, err := share()
		return sharedMsg{url, err}
	}
}

func (m *Model) onShared(msg sharedMsg) {
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ /serve: "+listener.VisibleString(msg.err.Error())))
		return
	}
	// The address is never wrapped: a line break inside it would break
	// copying it (the terminal folds a long line softly).
	m.print(m.blocks().notice(m.st.notice, "this session is on a web page (it and this terminal steer the same turns):") + "\n" + m.st.notice.Render(msg.url))
}
