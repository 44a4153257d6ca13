package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// startTurn sends text as a new turn. The agent numbers turns from 1 and
// only this model starts them, so the id is known before the first event.
func (m *Model) startTurn(text string) tea.Cmd { return m.startTurnWith("", text) }

// startTurnShown starts a turn whose message is drawn as shown (a
// review's request is the whole diff).
func (m *Model) startTurnShown(shown, text string) tea.Cmd {
	m.print(m.blocks().user(shown, false))
	m.stream.sanitizer = listener.Sanitizer{Visible: true}
	m.stream.streamed = false
	m.lastUser = shown
	m.planTurn = m.app.Planning()
	return m.runTurn(m.app.NewTurn(m.ctx, text), "waiting for the model")
}

// startTurnWith is startTurn with the turn's requests naming model ("":
// the session's).
func (m *Model) startTurnWith(model, text string) tea.Cmd {
	m.print(m.blocks().user(text, false))
	files := m.attachments
	m.attachments = nil
	if len(files) > 0 {
		m.print(m.st.dim.Render("  " + attachmentList(files)))
	}
	m.stream.sanitizer = listener.Sanitizer{Visible: true}
	m.stream.streamed = false
	m.lastUser = text
	m.planTurn = m.app.Planning()
	return m.runTurn(m.app.NewTurnWith(m.ctx, model, text, files...), "waiting for the model")
}

// runTurn makes the model busy with turn and runs it in a command. The
// agent numbers the turn before it emits anything, so every event of it
// (and every approval it asks) can be told from a late one of an
// earlier, cancelled turn.
func (m *Model) runTurn(turn *app.Turn, state string) tea.Cmd {
	m.busy, m.started, m.steps = true, m.now(), 0
	m.loop.Began()
	m.usage.turnSpent = spent{}
	m.live = liveTurn{state: state}
	m.notice = ""
	m.turn = turn.ID
	m.plan.changed = false
	run := func() tea.Msg {
		o := turn.Run()
		return turnDoneMsg{turn: o.Turn, res: o.Result, err: o.Err}
	}
	return tea.Batch(run, m.spin.Tick)
}

// atKeyboard is why a turn the person cancelled in the terminal ended.
const atKeyboard = "cancelled at the keyboard"

// cancelBecause stops the running turn at once (the agent aborts the
// stream and any tool, and everything it still emits for this turn is
// ignored), saying where it came from (atKeyboard; a page under /serve:
// "stopped in the browser"), which every front end shows.
func (m *Model) cancelBecause(reason string) tea.Cmd {
	m.app.Cancel(reason)
	m.ignoreUpTo = m.turn
	if m.live.text != "" {
		m.print(m.md.render(m.live.text, m.width))
	}
	said := "⏹ cancelled"
	if n := m.app.Jobs().Count(); n > 0 {
		said += fmt.Sprintf(" · background jobs keep running (%d): /ps lists them, /stop N ends one", n)
	}
	m.print(m.blocks().notice(m.st.cancelled, said))
	m.endTurn()
	if back := m.loop.Ended(); len(back) > 0 {
		if cur := m.input.value(); cur != "" {
			back = append(back, cur)
		}
		m.input.set(strings.Join(back, "\n"))
		m.notice = "what you queued is back in the input"
	}
	return nil
}

func (m *Model) endTurn() {
	if m.notice == m.turnHint {
		m.notice = "" // it was about the turn that ended
	}
	m.turnHint = ""
	if p := m.plan.finish(&m.st, m.width); p != "" {
		m.print(p)
	}
	m.afterPlanTurn()
	m.busy = false
	m.live = liveTurn{}
	m.asking = nil // its approver returns: the turn's context is done
	m.stream.toolOut = ""
}

func (m *Model) onEvent(ev listener.Event) tea.Cmd {
	if _, ok := ev.(listener.ContextCap); ok {
		// Not tied to a turn; the status bar reads the agent's window
		// itself (a probe may answer before the program listens), and
		// this event only draws it again.
		return nil
	}
	if j, ok := ev.(listener.Job); ok {
		// Not tied to a turn; the list is /ps's, and an end is said.
		if j.Ended {
			m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("■ background job %d ended: %s (/ps %d shows its last lines)", j.ID, listener.VisibleString(j.State), j.ID)))
		}
		return nil
	}
	if n, ok := ev.(listener.Notice); ok && n.Turn == 0 {
		// Not tied to a turn (a server that failed to start, a hook at
		// session start): shown whenever it comes.
		m.print(m.blocks().notice(m.st.warn, listener.VisibleString(n.Text)))
		return nil
	}
	if ev.Source().Turn <= m.ignoreUpTo {
		return nil
	}
	if id := ev.Source().Agent; isSubAgent(id) {
		return m.onSubAgent(id, ev)
	}
	switch e := ev.(type) {
	case listener.UserTurn:
		if e.MidLoop {
			m.loop.Delivered(e.Input)
			m.print(m.blocks().user(e.Content, true))
		}
	case listener.ThinkingDelta:
		m.live.thinking += listener.VisibleString(e.Text)
		m.live.state = "thinking"
	case listener.AssistantDelta:
		if m.live.thinking != "" { // the thinking came first: print it first
			m.print(m.blocks().thinking(m.live.thinking))
			m.live.thinking, m.stream.thoughtShown = "", true
		}
		m.stream.streamed = true
		m.live.state = "streaming"
		m.live.text += m.stream.sanitizer.Clean(e.Text)
		// Paragraphs that can no longer change go to the scrollback now, so
		// each frame re-renders only the tail.
		if stable, tail := splitStable(m.live.text); stable != "" {
			m.printAnswerPart(stable)
			m.live.text = tail
		}
	case listener.Thinking:
		if !m.stream.thoughtShown {
			m.print(m.blocks().thinking(listener.VisibleString(e.Text)))
		}
		m.live.thinking = ""
	case listener.Assistant:
		m.onAssistant(e)
	case listener.ToolCall:
		if m.interrupted[e.ID] {
			return nil // said when the session was resumed: it did not run again
		}
		m.steps++
		m.print(m.blocks().toolCall(e.Name, e.Arguments))
		m.live.state = "running " + truncateWidth(visibleLine(e.Name), 40)
	case listener.ToolOutput:
		m.stream.toolOut = lastLines(m.stream.toolOut+listener.VisibleString(e.Text), 4, 8<<10)
	case listener.ToolResult:
		if m.interrupted[e.ID] {
			delete(m.interrupted, e.ID)
			return nil
		}
		m.stream.toolOut = ""
		verdict, judged := m.stream.verdicts[e.ID]
		if judged {
			// The row shows the tool's own words; the verdict goes under it.
			delete(m.stream.verdicts, e.ID)
			e.Content = strings.TrimSuffix(strings.TrimSuffix(e.Content, verdict.ForModel), "\n\n")
		}
		m.print(m.blocks().toolResult(e))
		if text := listener.DiagnosticsText(verdict); judged && text != "" {
			m.print(m.blocks().notice(m.st.warn, indentLines(listener.VisibleString(text), "  ⎿ ", "    ")))
		}
		if !m.details {
			m.collapsed = &e // ctrl+o shows it in full after the fact
		}
		m.live.state = "waiting for the model"
	case listener.Diagnostics:
		if m.stream.verdicts == nil {
			m.stream.verdicts = map[string]listener.Diagnostics{}
		}
		m.stream.verdicts[e.CallID] = e
	case listener.DiagnosticsDelta:
		style := m.st.notice
		if e.ErrorsAfter > e.ErrorsBefore {
			style = m.st.warn
		}
		m.print(m.blocks().notice(style, "◇ diagnostics: "+e.DeltaText()))
	case listener.Usage:
		m.usage.add(e)
		if e.Agent == "" { // the synthesizer's request is not this conversation
			m.usage.contextUsed = e.Prompt + e.Completion
		}
		m.sayCut(e.Total)
	case listener.Compacting:
		m.live.state = "compacting"
	case listener.Rescued:
		m.print(m.blocks().notice(m.st.notice, "↻ "+listener.RescuedText(e)))
	case listener.Compacted:
		m.usage.contextUsed = e.After
		m.print(m.blocks().notice(m.st.notice, listener.CompactedText(e)))
		m.live.state = "waiting for the model"
	case listener.Notice:
		m.print(m.blocks().notice(m.st.warn, listener.VisibleString(e.Text)))
	case listener.Plan:
		m.plan.onPlan(e)
	case listener.FallbackNotice:
		m.print(m.blocks().notice(m.st.warn, "⚠ "+e.Reason))
		m.live.state = "synthesizing"
	case listener.Retry:
		// One line that updates, not a line per attempt.
		m.live.state = fmt.Sprintf("retrying in %s", e.Wait.Round(100e6))
		m.live.retry = fmt.Sprintf("↻ attempt %d failed, retrying in %s: %s", e.Attempt, e.Wait.Round(100e6), firstLine(listener.VisibleString(e.Err.Error()), 200))
	case listener.Cancelled:
		// Cancelled from elsewhere (a signal): the keyboard path already
		// marked this turn ignored.
		if m.live.text != "" {
			m.print(m.md.render(m.live.text, m.width))
		}
		m.print(m.blocks().notice(m.st.cancelled, "⏹ cancelled"))
		m.live = liveTurn{}
	case listener.Error:
		if m.live.retry != "" {
			m.print(m.blocks().notice(m.st.notice, m.live.retry))
			m.live.retry = ""
		}
		m.print(m.blocks().notice(m.st.err, "✗ "+listener.VisibleString(e.Err.Error())))
	}
	return nil
}

// printAnswerPart prints a finished part of a streaming answer. A part
// that ended at a blank line ended a paragraph: rendered alone, glamour
// trims that blank line, so it goes before the next part, as a whole
// render would have it.
func (m *Model) printAnswerPart(text string) {
	out := trimBlankLines(m.md.render(text, m.width))
	if out == "" {
		return
	}
	if m.live.paraBreak {
		out = "\n" + out
	}
	m.print(out)
	m.live.paraBreak = strings.HasSuffix(text, "\n\n")
}

// onAssistant prints what is left of a finished message: the streamed
// tail, or the whole text when nothing streamed (--no-stream).
func (m *Model) onAssistant(e listener.Assistant) {
	rest := m.live.text
	if !m.stream.streamed {
		rest = listener.VisibleString(e.Text)
	}
	if e.Synthesized {
		m.print(m.st.synthesized.Render("◆ synthesized answer") + "\n" + m.blocks().notice(m.st.hint, "  the step budget ran out · /continue goes on with a fresh budget"))
	}
	m.printAnswerPart(rest)
	m.live.paraBreak = false
	if e.Finish == "length" {
		m.cutOff = true // said at its Usage, which says which limit it was
	}
	if e.Text != "" {
		m.lastAnswer, m.lastSynthesized = e.Text, e.Synthesized
	}
	m.live.text, m.live.thinking, m.stream.streamed, m.stream.thoughtShown = "", "", false, false
	m.stream.sanitizer = listener.Sanitizer{Visible: true}
}

// onTurnDone ends a turn. Input that arrived too late for the agent, and
// what was queued for after the turn, starts the next turn.
func (m *Model) onTurnDone(msg turnDoneMsg) tea.Cmd {
	if m.reviewing { // a review's limits end with its turn
		m.reviewing = false
		if err := m.app.SetReviewing(false); err != nil {
			m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(err.Error())))
		}
	}
	m.sayCut(0) // no usage came to say which limit
	m.giveBack(msg.res.Unanswered)
	if msg.turn <= m.ignoreUpTo {
		return nil // cancelled at the keyboard; already ended
	}
	m.endTurn()
	var blocked *app.PromptBlockedError
	if errors.As(msg.err, &blocked) && m.input.empty() {
		m.input.set(m.lastUser) // not sent: the person may change it
	}
	if errors.Is(msg.err, control.ErrCancelled) {
		if back := m.loop.Ended(); len(back) > 0 {
			m.input.set(strings.Join(append(back, m.input.value()), "\n"))
		}
		return nil
	}
	next := m.loop.Ended()
	return m.runQueued(next)
}

// runQueued starts what was queued for after a turn, in order: commands
// run at once; the first message starts a turn, and everything after it
// waits for that turn, as the pending list shows them.
func (m *Model) runQueued(next []string) tea.Cmd {
	var cmds []tea.Cmd
	for i, t := range next {
		if m.busy || m.picker != nil || m.bang != nil { // a command started a turn, a picker or a ! command
			for _, rest := range next[i:] {
				m.loop.Add(rest, false)
			}
			break
		}
		if isCommandLine(t) {
			if cmd, ok := m.command(t); ok {
				cmds = append(cmds, cmd)
				continue
			}
		}
		if isBangLine(t) {
			cmds = append(cmds, m.runBang(t))
			continue
		}
		cmds = append(cmds, m.startTurn(t))
	}
	return tea.Batch(cmds...)
}

func attachmentList(files []session.FilePart) string {
	var names []string
	for _, f := range files {
		names = append(names, fmt.Sprintf("📎 %s (%s)", f.Filename, humanBytes(len(f.Data))))
	}
	return strings.Join(names, "  ")
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// lastLines keeps the last n lines of s (and at most max bytes).
func lastLines(s string, n, max int) string {
	if len(s) > max {
		s = s[len(s)-max:]
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// giveBack puts the text of questions that got no answer back into the
// input: Enter sends it again, clearing the input drops it (the session
// keeps it, marked unanswered, and never re-sends it on its own).
func (m *Model) giveBack(unanswered []session.Message) {
	var texts []string
	for _, u := range unanswered {
		if strings.TrimSpace(u.Content) != "" {
			texts = append(texts, u.Content)
		}
	}
	if len(texts) == 0 {
		return
	}
	text := strings.Join(texts, "\n")
	if cur := m.input.value(); cur != "" {
		text += "\n" + cur
	} else {
		text += " " // what is typed next continues it as words, not glued on
	}
	m.input.set(text)
	m.notice = "no answer came: your message is back in the input (enter sends it again, ctrl+c clears it)"
}

// trimBlankLines drops the blank lines glamour puts around a block
// rendered alone (a list, a code block): between parts the blank line is
// added once, as a whole render has it.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// sayCut says, once, that the answer was cut, and by which limit: the
// context window when the request and the answer filled it, else the
// output limit.
func (m *Model) sayCut(total int) {
	if !m.cutOff {
		return
	}
	m.cutOff = false
	if window := m.app.ContextWindow(); listener.WindowFilled(total, window) {
		m.print(m.blocks().notice(m.st.warn, fmt.Sprintf("⚠ the answer was cut off: the context window is full (%d of %d tokens) · /compact or /new makes room", total, window)))
		return
	}
	m.print(m.blocks().notice(m.st.warn, "⚠ the answer was cut off at the model's output limit"))
}

// indentLines puts first before the first line of text and rest before
// the others.
func indentLines(text, first, rest string) string {
	lines := strings.Split(text, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
