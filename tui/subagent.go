package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
)

// isSubAgent tells a sub-agent's events (and its synthesizer's) from the
// main agent's and the main synthesizer's, whose answer is the turn's.
func isSubAgent(id string) bool { return id != "" && id != listener.SynthesizerID("") }

// onSubAgent shows a sub-agent's work under the call that started it,
// indented and tagged with its id: its task, its tool calls, and its
// answer on one line (in full with ctrl+o). Its text never streams into
// the turn's answer.
func (m *Model) onSubAgent(id string, ev listener.Event) tea.Cmd {
	id = visibleLine(id)
	switch e := ev.(type) {
	case listener.UserTurn:
		if !e.MidLoop {
			m.print(m.st.toolName.Render("  ⤷ "+id) + " " + m.st.dim.Render(firstLine(listener.VisibleString(e.Content), max(m.width-len(id)-6, 10))))
		}
		m.live.state = id + " is working"
	case listener.ThinkingDelta:
		m.live.state = id + " is thinking"
	case listener.AssistantDelta:
		m.live.state = id + " is writing"
	case listener.Assistant:
		if e.Text == "" || len(e.ToolCalls) > 0 {
			break
		}
		text := listener.VisibleString(e.Text)
		head := m.st.toolOK.Render("  ⤶ "+id+" answered: ") + m.st.dim.Render(firstLine(text, max(m.width-len(id)-16, 10)))
		if m.details {
			head += "\n" + indentBlock(m.md.render(text, max(m.width-4, 20)), "    ")
		}
		m.print(head)
	case listener.ToolCall:
		m.print("    " + m.blocks().toolCall(e.Name, e.Arguments))
		m.live.state = id + ": running " + truncateWidth(visibleLine(e.Name), 30)
	case listener.ToolResult:
		m.print(indentBlock(m.blocks().toolResult(e), "  "))
	case listener.Usage:
		m.usage.add(e)
	case listener.Retry:
		m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("    ↻ %s: attempt %d failed, retrying in %s", id, e.Attempt, e.Wait.Round(100e6))))
	case listener.FallbackNotice:
		m.print(m.blocks().notice(m.st.warn, "    ⚠ "+id+": "+e.Reason))
	case listener.Notice:
		m.print(m.blocks().notice(m.st.warn, "    "+id+": "+listener.VisibleString(e.Text)))
	case listener.Compacted:
		m.print(m.blocks().notice(m.st.notice, "    "+id+": "+listener.CompactedText(e)))
	case listener.Error:
		m.print(m.blocks().notice(m.st.err, "    ✗ "+id+": "+firstLine(listener.VisibleString(e.Err.Error()), max(m.width-10, 20))))
	case listener.Cancelled:
		m.print(m.blocks().notice(m.st.cancelled, "    ⏹ "+id+" stopped"))
	}
	return nil
}

func indentBlock(block, pad string) string {
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n")
}
