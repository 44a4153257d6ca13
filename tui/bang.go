package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/listener"
)

// A line starting with "!" is the person's own shell command: run as
// them (no model, no approval, their environment), its output streamed
// here and kept as context for their next message.

// bangContextMax bounds the output that goes to the model (head and tail).
const bangContextMax = 16 << 10

// bangShown is how many lines of output the transcript keeps.
const bangShown = 20

// bangRun is a ! command running.
type bangRun struct {
	command string
	cancel  context.CancelFunc
	msgs    chan tea.Msg
	out     strings.Builder // all of it, up to bangContextMax*4
	cut     bool
}

type bangOutputMsg struct{ text string }

type bangDoneMsg struct {
	exit int
	err  error
}

// bangWriter sends each write to the program, in order.
type bangWriter chan<- tea.Msg

func (w bangWriter) Write(p []byte) (int, error) {
	w <- bangOutputMsg{text: string(p)}
	return len(p), nil
}

func isBangLine(s string) bool { return strings.HasPrefix(s, "!") }

// runBang starts a ! line's command.
func (m *Model) runBang(line string) tea.Cmd {
	command := strings.TrimSpace(strings.TrimPrefix(line, "!"))
	switch {
	case command == "":
		m.notice = "! runs a shell command as you: !git status"
		return nil
	case m.app.Workdir() == "":
		m.notice = "! commands are not available here"
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	run := &bangRun{command: command, cancel: cancel, msgs: make(chan tea.Msg, 64)}
	m.bang = run
	m.print(m.st.warn.Render("!") + " " + visibleLine(command))
	shell := m.app.PersonShell
	go func() {
		code, err := shell(ctx, command, bangWriter(run.msgs))
		run.msgs <- bangDoneMsg{exit: code, err: err}
	}()
	return waitBang(run.msgs)
}

func waitBang(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

func (m *Model) onBang(msg tea.Msg) tea.Cmd {
	run := m.bang
	if run == nil {
		return nil
	}
	switch msg := msg.(type) {
	case bangOutputMsg:
		if run.out.Len() < bangContextMax*4 {
			run.out.WriteString(msg.text)
		} else {
			run.cut = true
		}
		m.stream.toolOut = lastLines(m.stream.toolOut+listener.VisibleString(msg.text), 4, 8<<10)
		return waitBang(run.msgs)
	case bangDoneMsg:
		m.bang, m.stream.toolOut = nil, ""
		run.cancel()
		m.print(m.blocks().bang(run, msg))
		m.app.AddContext(bangContext(run, msg))
		m.notice = "the command and its output go with your next message"
		if len(m.loop.Pending()) > 0 && !m.busy {
			next := m.loop.Ended()
			return m.runQueued(next)
		}
	}
	return nil
}

// bangBlock is the command's output in the transcript: its last lines.
func (bl blocks) bang(run *bangRun, done bangDoneMsg) string {
	out := strings.TrimRight(listener.VisibleString(run.out.String()), "\n")
	var b strings.Builder
	if out != "" {
		lines := strings.Split(out, "\n")
		if len(lines) > bangShown {
			b.WriteString(bl.st.dim.Render(fmt.Sprintf("  … %d lines above", len(lines)-bangShown)) + "\n")
			lines = lines[len(lines)-bangShown:]
		}
		for _, l := range lines {
			b.WriteString(bl.st.dim.Render("  │ "+truncateWidth(l, bl.width-4)) + "\n")
		}
	}
	switch {
	case done.err != nil:
		b.WriteString(bl.st.err.Render("  ⎿ " + firstLine(done.err.Error(), bl.width-6)))
	case done.exit != 0:
		b.WriteString(bl.st.err.Render(fmt.Sprintf("  ⎿ exit status %d", done.exit)))
	default:
		b.WriteString(bl.st.toolOK.Render("  ⎿ ") + bl.st.dim.Render("done"))
	}
	return b.String()
}

// bangContext is what the model reads of a ! command with the next
// message: the command, its output (head and tail when long) and status.
func bangContext(run *bangRun, done bangDoneMsg) string {
	out := run.out.String()
	if len(out) > bangContextMax || run.cut {
		head := clip.Prefix(out, bangContextMax/2)
		tail := out[max(len(out)-bangContextMax/2, len(head)):]
		out = head + "\n[… output cut …]\n" + tail
	}
	status := fmt.Sprint(done.exit)
	if done.err != nil {
		status = done.err.Error()
	}
	return fmt.Sprintf("The user ran this command in their own shell (not you), before this message:\n<bash-input>%s</bash-input>\n<bash-output exit=%q>\n%s\n</bash-output>",
		run.command, status, strings.TrimRight(out, "\n"))
}
