package tui

import (
	"errors"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// Messages the model receives besides Bubble Tea's own.
type (
	// agentEventMsg carries one listener event from the bridge.
	agentEventMsg struct{ ev listener.Event }
	// turnDoneMsg: a turn's Run returned.
	turnDoneMsg struct {
		turn uint64
		res  app.Result
		err  error
	}
	printedMsg      struct{}           // the last batch of blocks reached the terminal
	drawnTimeoutMsg struct{ wait int } // the terminal did not answer in time (printing.go)
	quitDisarmMsg   struct{ armed time.Time }
	modelsMsg       struct {
		models []string
		err    error
		// check: the answer to /model NAME's look at the list, not /models
		check string
	}
	editorStartMsg struct{ path string }
	editorDoneMsg  struct {
		path string
		err  error
	}
	editorTextMsg struct {
		text string
		err  error
	}
	attachedMsg struct {
		part session.FilePart
		err  error
	}
)

// Update routes a message to its family's handler, then hands any finished
// blocks to the terminal.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.flush())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 5)
		return nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.restyle()
		return nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case bangOutputMsg, bangDoneMsg:
		return m.onBang(msg)
	case filesMsg:
		return m.onFiles(msg)
	case mentionedMsg:
		return m.onMentioned(msg)
	case tea.PasteMsg:
		m.lastTyped = m.now()
		if p := pastedImagePath(msg.Content); p != "" && m.asking == nil {
			// A dropped image file: attached, not typed.
			return func() tea.Msg {
				part, err := session.Attach(p)
				return attachedMsg{part: part, err: err}
			}
		}
		m.input.paste(msg.Content)
		return m.refreshMentions()
	case clipboardMsg:
		switch {
		case msg.err == nil:
			m.attachments = append(m.attachments, msg.part)
			m.notice = "attached the clipboard's image (" + session.SizeText(int64(len(msg.part.Data))) + ") to your next message"
			return nil
		case errors.Is(msg.err, errNoImage):
			return m.input.update(msg.key) // no image: the key pastes text, as ever
		}
		m.notice = msg.err.Error()
		return m.input.update(msg.key)
	case tea.MouseWheelMsg:
		if m.opts.Fullscreen {
			step := 3
			if msg.Mouse().Button == tea.MouseWheelDown {
				step = -3
			}
			m.scroll.scrollBy(step, m.height-lineCount(m.liveRegion())) // the transcript's rows above the live region
		}
		return nil
	case agentEventMsg:
		return m.onEvent(msg.ev)
	case turnDoneMsg:
		// A turn cancelled at the keyboard needs no word: the person is there.
		took, tell := m.now().Sub(m.started), msg.turn > m.ignoreUpTo && !errors.Is(msg.err, control.ErrCancelled)
		cmd := m.onTurnDone(msg)
		if tell {
			cmd = tea.Batch(cmd, m.notify.turnEnded(took, turnEndText(msg)))
		}
		return cmd
	case statusTickMsg:
		return m.onStatusTick()
	case statusLineMsg:
		m.onStatusLine(msg)
		return nil
	case tea.FocusMsg:
		m.notify.focused = true
		return nil
	case tea.BlurMsg:
		m.notify.focused = false
		return nil
	case printedMsg:
		m.printing = false
		return nil
	case tea.CursorPositionMsg:
		return m.onTerminalAnswer()
	case drawnTimeoutMsg:
		if m.drawn.waiting && msg.wait == m.drawn.id {
			return m.frameDrawn()
		}
		return nil
	case typedMsg:
		if wait := m.input.endTyping(); wait != nil {
			return wait
		}
		return m.refreshMentions()
	case heldKeyMsg:
		m.onHeldKey(msg)
		return nil
	case quitDisarmMsg:
		if m.quitArm.Equal(msg.armed) {
			m.quitArm = time.Time{}
			m.notice = ""
		}
		return nil
	case followTick:
		return m.onFollowTick(msg)
	case spinner.TickMsg:
		if !m.busy {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case modelsMsg:
		return m.onModels(msg)
	case editorStartMsg, editorDoneMsg, editorTextMsg:
		return m.onEditor(msg)
	case approvalMsg:
		m.onApproval(msg)
		if m.asking != nil {
			return m.notify.waiting(m.asking.req.Review.Summary)
		}
		return nil
	case reviewMsg:
		return m.onReview(msg)
	case worktreeMsg:
		return m.onWorktree(msg)
	case promptFileMsg:
		return m.onPromptFile(msg)
	case promptMsg:
		return m.onPrompt(msg)
	case mcpConnectedMsg:
		return m.onMCPConnected(msg)
	case elicitMsg:
		m.onElicit(msg)
		return m.notify.waiting("an MCP server asks you something")
	case elicitGoneMsg:
		if f := m.form; f != nil && f.reply == msg.reply {
			m.closeForm("  " + visibleLine(f.e.Server) + "'s question was withdrawn")
		}
		return nil
	case remoteSendMsg, remoteStopMsg, withdrawnMsg:
		return m.onRemote(msg)
	case sharedMsg:
		m.onShared(msg)
		return nil
	case sessionsMsg:
		m.onSessions(msg)
		return nil
	case showResumedMsg:
		m.showResumed(m.app.Session().Messages())
		return nil
	case rewoundMsg:
		m.onRewound(msg)
		return nil
	case resumedMsg:
		m.onResumed(msg)
		return nil
	case attachedMsg:
		if msg.err != nil {
			m.print(m.blocks().notice(m.st.err, "✗ "+msg.err.Error()))
			return nil
		}
		m.attachments = append(m.attachments, msg.part)
		return nil
	}
	return m.input.update(msg)
}
