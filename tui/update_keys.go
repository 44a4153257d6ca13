package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/tool"
)

// quitWindow is how long a first Ctrl+C at idle waits for the second.
const quitWindow = 2 * time.Second

// typingQuiet is how long after the last key typed into the input an
// approval prompt starts taking keys on its own (the input empty). Until
// then it waits, visibly; Tab, which is never a character, moves to it at
// once.
const typingQuiet = time.Second

// typed reports keys that are typing into the input (text, Enter,
// deleting), as opposed to keys pressed on purpose (Tab, arrows).
func typed(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "enter", "backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "shift+enter", "alt+enter", "ctrl+j":
		return true
	}
	return k.Text != ""
}

// promptTakesKeys reports whether the approval prompt answers keys now:
// moved to with Tab, or the input is empty and nobody typed for a second.
// Typing never answers it, whatever its speed.
func (m *Model) promptTakesKeys(now time.Time) bool {
	return m.asking.focused || (m.input.empty() && now.Sub(m.lastTyped) >= typingQuiet)
}

func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	now := m.now()
	var released tea.Cmd
	if a := m.asking; a != nil && a.held != "" {
		released = m.releaseHeld() // a key followed the answer key: it was typing
	}
	cmd := m.onKeyAfterHeld(k, key, now)
	if released != nil {
		return tea.Batch(released, cmd)
	}
	return cmd
}

func (m *Model) onKeyAfterHeld(k tea.KeyPressMsg, key string, now time.Time) tea.Cmd {
	if m.form != nil && key != "ctrl+c" && m.formKey(k) {
		return nil
	}
	if a := m.asking; a != nil {
		switch {
		case a.idle && (key == "ctrl+c" || key == "esc") && !a.reasoning:
			m.answer(tool.Decision{Verdict: tool.Deny, Reason: "the user declined"}, "✗ declined")
			return nil
		case key == "ctrl+c", key == "esc" && !a.reasoning:
			// below: cancels the turn, and with it the question
		case a.reasoning:
			if m.approvalKey(key) {
				return nil
			}
			return m.typeKey(k) // the reason
		case key == "tab":
			a.focused = true
			m.notice = ""
			return nil
		case !m.promptTakesKeys(now):
			// The person is typing: the key is theirs (Enter sends what
			// they typed, as ever), the question waits.
		case !a.focused && answerKey(key):
			// An answer only if it stands alone (see standAlone).
			a.held, a.heldKey = key, k
			return tea.Tick(standAlone, func(time.Time) tea.Msg { return heldKeyMsg{a: a} })
		case m.approvalKey(key):
			return nil
		default:
			a.focused = false // typing again: the question waits
		}
	}
	if typed(k) {
		m.lastTyped = now
	}
	if m.picker != nil {
		switch chosen, handled := m.picker.key(key); {
		case chosen != "":
			m.picker = nil
			return m.resume(chosen)
		case handled && m.picker.closed:
			m.picker = nil
			return nil
		case handled:
			return nil
		}
	}
	if m.asking == nil && m.picker == nil && m.mentionKey(key) {
		return nil
	}
	if key != "ctrl+c" && !m.quitArm.IsZero() {
		m.quitArm, m.notice = time.Time{}, ""
	}
	switch key {
	case "ctrl+c", "esc":
		if m.bang != nil {
			m.bang.cancel()
			m.notice = "stopping the command"
			return nil
		}
	}
	switch key {
	case "ctrl+c":
		return m.ctrlC()
	case "esc":
		if m.busy {
			return m.cancelBecause(atKeyboard)
		}
		if m.follow != 0 {
			m.follow, m.notice = 0, "" // the job goes on; /ps lists it
			return nil
		}
		return m.escAtIdle()
	case "ctrl+d":
		if m.input.empty() {
			if m.busy {
				m.notice, m.turnHint = "a turn is running: esc or ctrl+c cancels it first", "a turn is running: esc or ctrl+c cancels it first"
				return nil
			}
			return tea.Quit
		}
	case "enter":
		return m.submit(true)
	case "ctrl+v":
		// An image on the clipboard is attached; else the key pastes text.
		return pasteImage(m.getenv(), k)
	case "tab":
		if m.busy && !m.input.empty() {
			return m.submit(false)
		}
		if strings.HasPrefix(m.input.value(), "/") {
			return m.completeCommand()
		}
		return nil
	case "up":
		if m.input.empty() && len(m.loop.Pending()) > 0 {
			if p, ok := m.loop.TakeNewest(); ok {
				m.input.set(p.Text)
				m.queuedEdit = true
				m.notice, m.turnHint = "editing a queued message: enter injects it, tab sends it after the turn, ctrl+x deletes it", "editing a queued message: enter injects it, tab sends it after the turn, ctrl+x deletes it"
			}
			return nil
		}
		if m.input.onFirstLine() && m.input.historyPrev() {
			return nil
		}
	case "down":
		if m.input.onLastLine() && m.input.historyNext() {
			return nil
		}
	case "ctrl+x":
		if m.queuedEdit && !m.input.empty() { // the queued message taken out to edit
			m.notice = "deleted: " + truncateWidth(m.input.value(), 40)
			m.input.set("")
			m.queuedEdit = false
			return nil
		}
		m.queuedEdit = false
		if m.input.empty() && len(m.loop.Pending()) > 0 {
			if p, ok := m.loop.TakeNewest(); ok {
				m.notice = "deleted: " + truncateWidth(p.Text, 40)
			}
			return nil
		}
	case "ctrl+o":
		m.details = !m.details
		if m.details && m.collapsed != nil {
			// The output just collapsed, in full, with its call named.
			m.print(m.st.dim.Render("  (in full: "+visibleLine(m.collapsed.Name)+")") + "\n" + m.blocks().toolResult(*m.collapsed))
			m.collapsed = nil
		}
		if m.details {
			m.notice = "details on: thinking and tool output are shown in full"
		} else {
			m.notice = "details off"
		}
		return nil
	case "ctrl+g":
		return m.openEditorWith(m.input.text()) // $EDITOR on the input
	case "shift+tab":
		return m.togglePlanning()
	case "pgup", "pgdown":
		if m.opts.Fullscreen {
			rows := m.height - lineCount(m.liveRegion()) // the transcript's, above the live region
			page := max(rows-1, 1)
			if key == "pgdown" {
				page = -page
			}
			m.scroll.scrollBy(page, rows)
			return nil
		}
	}
	return m.typeKey(k)
}

// escAtIdle: Esc Esc on an empty input edits the last message (enter
// then runs the conversation again from there); Esc leaves that edit.
func (m *Model) escAtIdle() tea.Cmd {
	now := m.now()
	defer func() { m.lastEsc = now }()
	if m.promptAsk != nil {
		m.promptAsk, m.notice = nil, ""
		m.input.clear()
		return nil
	}
	if m.editing != "" {
		m.editing, m.notice = "", ""
		m.input.clear()
		return nil
	}
	if !m.input.empty() || now.Sub(m.lastEsc) > time.Second {
		return nil
	}
	if q, ok := m.edits.LastQuestion(); ok {
		m.editing = q.ID
		m.input.set(q.Content)
		m.notice = "editing your last message: enter runs it again from there, esc leaves"
	}
	return nil
}

// typeKey gives a key to the input and updates what depends on its text.
func (m *Model) typeKey(k tea.KeyPressMsg) tea.Cmd {
	return tea.Batch(m.input.update(k), m.refreshMentions())
}

// ctrlC: cancel a running turn; else clear the input; else quit on a
// second press within quitWindow. A single press never quits mid-turn.
func (m *Model) ctrlC() tea.Cmd {
	switch {
	case m.busy:
		return m.cancelBecause(atKeyboard)
	case !m.input.empty():
		m.input.clear()
		return nil
	case !m.quitArm.IsZero() && m.now().Sub(m.quitArm) < quitWindow:
		return tea.Quit
	}
	m.quitArm = m.now()
	m.notice = "press ctrl+c again to quit"
	armed := m.quitArm
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitDisarmMsg{armed: armed} })
}

// isCommandLine: a slash command is one line starting with "/".
func isCommandLine(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.Contains(s, "\n")
}

// submit sends the input: a command, a new turn, or while a turn runs an
// item for the pending list (inject: into this turn; else after it).
func (m *Model) submit(inject bool) tea.Cmd {
	if m.queuedEdit && m.notice == m.turnHint {
		m.notice = "" // the edit is done: its hint no longer applies
	}
	m.queuedEdit = false
	if m.promptAsk != nil {
		return m.promptArgTyped()
	}
	raw := m.input.value()
	text := m.input.text()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if isCommandLine(raw) {
		m.input.clear() // before the command: /undo puts text back
		if cmd, ok := m.command(raw); ok {
			return cmd
		}
		m.input.set(raw) // not a command after all: send it as text
	}
	if isBangLine(raw) && m.editing == "" {
		switch {
		case m.bang != nil:
			m.notice = "a command is running: wait for it, or ctrl+c stops it"
			return nil
		case m.busy: // after the turn, as a queued message would be
			m.loop.Add(raw, false)
			m.input.clear()
			return nil
		}
		hist := m.input.remember(raw)
		m.input.clear()
		return tea.Batch(hist, m.runBang(raw))
	}
	if m.bang != nil {
		m.notice = "a command is running: wait for it, or ctrl+c stops it"
		return nil
	}
	hist := m.input.remember(text)
	m.input.clear()
	if m.editing != "" && !m.busy {
		err := m.edits.EditFrom(m.editing)
		m.editing = ""
		if err != nil {
			m.notice = err.Error()
			return hist
		}
		m.print(m.blocks().notice(m.st.notice, "✎ the conversation goes on from your edited message"))
	}
	if m.busy {
		if inject {
			m.loop.Add(text, true)
		} else {
			m.loop.Add(text, false)
		}
		return hist
	}
	if m.app.Workdir() != "" && strings.Contains(text, "@") {
		confirmed := text == m.confirmOutside
		m.confirmOutside = ""
		return tea.Batch(hist, resolveMentions(text, m.app.Workdir(), m.app.MCP(), confirmed))
	}
	return tea.Batch(hist, m.startTurn(text))
}

// openEditorWith opens $EDITOR on text in a file of its own.
func (m *Model) openEditorWith(text string) tea.Cmd {
	return func() tea.Msg {
		// In a folder of its own (mode 0700): no other process of the
		// person's, a sandboxed command least of all, can read or swap it.
		dir, err := os.MkdirTemp("", "chat-input-")
		if err != nil {
			return editorTextMsg{err: err}
		}
		f, err := os.OpenFile(filepath.Join(dir, "message.md"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			os.Remove(dir)
			return editorTextMsg{err: err}
		}
		// A text file ends with a newline: an editor that appends (echo
		// >>, ed) starts a line of its own.
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		_, err = f.WriteString(text)
		f.Close()
		if err != nil {
			return editorTextMsg{err: err}
		}
		return editorStartMsg{path: f.Name()}
	}
}

func (m *Model) onEditor(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case editorStartMsg:
		editor := os.Getenv("VISUAL")
		if editor == "" {
			editor = os.Getenv("EDITOR")
		}
		if editor == "" {
			editor = "vi"
		}
		fields := strings.Fields(editor)
		c := exec.Command(fields[0], append(fields[1:], msg.path)...)
		return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{path: msg.path, err: err} })
	case editorDoneMsg:
		return func() tea.Msg {
			defer os.RemoveAll(filepath.Dir(msg.path))
			if msg.err != nil {
				return editorTextMsg{err: msg.err}
			}
			b, err := os.ReadFile(msg.path)
			return editorTextMsg{text: strings.TrimRight(string(b), "\n"), err: err}
		}
	case editorTextMsg:
		if msg.err != nil {
			m.planEdit = false
			m.notice = "editor: " + msg.err.Error()
			return nil
		}
		if m.planEdit {
			return m.planEdited(msg.text)
		}
		m.input.clear()
		m.input.set(msg.text)
	}
	return nil
}
