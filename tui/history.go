package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// dropLastExchange removes the last user message and all after it, and
// returns that message.
func (m *Model) dropLastExchange() (session.Message, bool) {
	q, err := m.edits.DropLastExchange()
	if err != nil {
		m.notice = err.Error()
		return session.Message{}, false
	}
	return q, true
}

// retry drops the last exchange from history and sends its question again.
func (m *Model) retry() tea.Cmd {
	last, ok := m.dropLastExchange()
	if !ok {
		m.notice = "nothing to retry yet"
		return nil
	}
	m.print(m.blocks().notice(m.st.notice, "↻ retrying the last question"))
	return m.startTurn(last.Content)
}

// undo drops the last exchange and puts its question back in the input.
func (m *Model) undo() {
	last, ok := m.dropLastExchange()
	if !ok {
		m.notice = "nothing to undo"
		return
	}
	m.print(m.blocks().notice(m.st.notice, "⤺ removed the last question and its answer"))
	if m.input.empty() {
		m.input.set(last.Content)
	}
}

// rewind lists the turns (no argument) or rewinds to before turn N, in a
// command (it reads and writes files).
func (m *Model) rewind(arg string) tea.Cmd {
	r := m.app.Rewinder()
	if r == nil {
		m.notice = "checkpoints are off in this run"
		return nil
	}
	f := strings.Fields(arg)
	if len(f) == 0 {
		return func() tea.Msg {
			text, err := r.Turns()
			return rewoundMsg{report: strings.TrimRight(text, "\n") + "\n/rewind N puts files and conversation back to before turn N; add files or conversation for one of them", err: err}
		}
	}
	n, err := strconv.Atoi(f[0])
	files, conv, force := true, true, false
	for _, w := range f[1:] {
		switch w {
		case "files":
			conv = false
		case "conversation":
			files = false
		case "force":
			force = true
		default:
			err = fmt.Errorf("%q", w)
		}
	}
	if err != nil || n < 1 || !files && !conv {
		m.notice = "/rewind N [files|conversation] [force]; /rewind alone lists the turns"
		return nil
	}
	return func() tea.Msg {
		report, question, err := r.Rewind(n, files, conv, force)
		return rewoundMsg{report: report, question: question, err: err}
	}
}

type rewoundMsg struct {
	report, question string
	err              error
}

func (m *Model) onRewound(msg rewoundMsg) {
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+listener.VisibleString(msg.err.Error())))
		return
	}
	m.print(m.blocks().notice(m.st.notice, listener.VisibleString(strings.TrimRight(msg.report, "\n"))))
	if msg.question != "" {
		msgs := m.app.Session().Messages()
		m.usage.contextUsed = contextOf(msgs)
		if m.input.empty() {
			m.input.set(msg.question)
		}
	}
}

// resume loads a stored session in a command (reading it is IO); the
// model switches to it in onResumed.
func (m *Model) resume(prefix string) tea.Cmd {
	host := m.app.Sessions()
	if host == nil || prefix == "" {
		m.notice = "/resume ID switches to a saved session; /sessions picks one"
		return nil
	}
	return func() tea.Msg {
		s, info, err := host.Open(prefix)
		return resumedMsg{s: s, dir: info.Dir, id: info.ID, err: err}
	}
}

type resumedMsg struct {
	s       *session.Session
	dir, id string // where the session was made, and its id ("": unknown)
	err     error
}

func (m *Model) onResumed(msg resumedMsg) {
	if errors.Is(msg.err, session.ErrNoSession) {
		m.print(m.blocks().notice(m.st.err, "✗ no saved session has that id; /sessions lists them"))
		return
	}
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+listener.VisibleString(msg.err.Error())))
		return
	}
	s := msg.s
	m.app.SetSession(s)
	m.usage.reset()
	m.lastAnswer, m.lastSynthesized = "", false
	m.showResumed(s.Messages())
	if here := m.app.Workdir(); msg.dir != "" && here != "" && msg.dir != here {
		// Tools act on this folder, not the one the session was made in.
		m.print(m.blocks().notice(m.st.warn, fmt.Sprintf("⚠ this session was made in %s; files and commands act on %s, here. To go on there: cd %s && chat --resume %s",
			visibleLine(msg.dir), visibleLine(here), visibleLine(msg.dir), session.ShortID(msg.id))))
	}
}

type showResumedMsg struct{}

// showResumed says a session was resumed and shows where it stopped: the
// last question and what followed.
func (m *Model) showResumed(msgs []session.Message) {
	m.usage.contextUsed = contextOf(msgs)
	m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("── resumed a session of %d messages ──", len(msgs))))
	// Show where it stopped: the last question and what followed.
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			m.print(m.blocks().user(listener.VisibleString(msgs[i].Content), msgs[i].MidTurn)) // ↳ for text sent into a turn
			for _, x := range msgs[i+1:] {
				if x.Role == session.RoleAssistant && x.Content != "" {
					m.print(m.md.render(listener.VisibleString(x.Content), m.width))
				}
			}
			break
		}
	}
	if p := currentPlan(msgs); len(p.steps) > 0 && p.left() > 0 {
		m.plan = p
		m.plan.changed = true
		if p := m.plan.finish(&m.st, m.width); p != "" {
			m.print(p)
		}
	}
	// Calls chat stopped in the middle of: said now, with what happens
	// to them, not only under the next message as if they ran again.
	started, waiting := session.SplitStarted(session.PendingCalls(msgs))
	m.interrupted = map[string]bool{}
	for _, c := range started {
		m.interrupted[c.ID] = true // its answer, at the next turn's start, is not drawn again
		m.print(m.blocks().notice(m.st.warn, "⚠ chat stopped while "+callLine(c)+" ran: it may have done part of its work. "+
			"It is not run again; with your next message the model is told so."))
	}
	for _, c := range waiting {
		m.print(m.blocks().notice(m.st.warn, "⏸ "+callLine(c)+" had not run when chat stopped: it runs, asking you first where it must, "+
			"when you send your next message, before the model reads it."))
	}
}

// callLine names a call on one line: the tool and its arguments, cut.
func callLine(c session.ToolCall) string {
	return listener.VisibleString(c.Name) + " " + truncateWidth(visibleLine(c.Arguments), 80)
}

// compact runs a compaction as a turn: busy, cancellable with ctrl+c, its
// outcome handled as a turn's.
func (m *Model) compact(instructions string) tea.Cmd {
	return m.runTurn(m.app.Compact(m.ctx, instructions), "compacting")
}

// continueTurn replaces a synthesized answer by more work: the answer is
// dropped and the loop goes on with a fresh budget.
func (m *Model) continueTurn() tea.Cmd {
	if !m.lastSynthesized {
		m.notice = "/continue follows a synthesized answer (when the step budget ran out)"
		return nil
	}
	prompt, err := m.edits.ContinueSynthesized()
	if err != nil {
		m.notice = "/continue follows a synthesized answer (when the step budget ran out)"
		return nil
	}
	m.lastSynthesized = false
	return m.startTurn(prompt)
}
