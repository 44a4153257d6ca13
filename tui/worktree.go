package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
)

// worktreeMsg is /worktree's outcome: a report, and for /worktree NAME
// the folder the session moves to.
type worktreeMsg struct {
	report, enter string
	err           error
}

// worktree runs /worktree's line (git can take a while: a command).
func (m *Model) worktree(args string) tea.Cmd {
	f := strings.Fields(args)
	moving := len(f) == 1 && !map[string]bool{"list": true, "diff": true, "merge": true, "rm": true, "remove": true}[f[0]]
	switch {
	case moving && m.opts.Moved == nil:
		m.print(m.blocks().notice(m.st.err, "✗ /worktree NAME moves a terminal session: here, start chat --worktree NAME"))
		return nil
	case moving && m.busy:
		m.print(m.blocks().notice(m.st.err, "✗ the session moves between turns: stop this one (ctrl+c) or wait for it, then /worktree "+f[0]))
		return nil
	}
	a, ctx := m.app, m.ctx
	return func() tea.Msg {
		report, enter, err := a.Worktree(ctx, args)
		return worktreeMsg{report: report, enter: enter, err: err}
	}
}

func (m *Model) onWorktree(msg worktreeMsg) tea.Cmd {
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(msg.err.Error())))
		return nil
	}
	if msg.enter != "" && m.opts.Moved != nil {
		m.opts.Moved(msg.enter, msg.report)
		return tea.Quit
	}
	m.print(m.blocks().notice(m.st.notice, listener.VisibleString(strings.TrimRight(msg.report, "\n"))))
	return nil
}
