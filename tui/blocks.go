package tui

import (
	"fmt"
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/listener"
)

// Block renderers: each turns one finished thing into the text printed
// above the live region. Model and tool text arrive here sanitized.

func (m *Model) userBlock(text string, midLoop bool) string {
	label, style := "›", m.st.user
	if midLoop {
		label, style = "↳", m.st.userMid
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > 12 {
		n := len(lines)
		lines = append(lines[:10:10], m.st.dim.Render(fmt.Sprintf("… %d more lines", n-10)))
	}
	var b strings.Builder
	for i, l := range lines {
		// Wrapped here at word boundaries, continuation lines indented
		// under the text (the terminal would cut mid-word, at column 0).
		for j, part := range strings.Split(wrap(l, max(m.width-2, 10)), "\n") {
			switch {
			case i == 0 && j == 0:
				b.WriteString(style.Render(label) + " " + part)
			default:
				b.WriteString("\n  " + part)
			}
		}
	}
	return b.String()
}

func (m *Model) toolCallLine(name, args string) string {
	name = visibleLine(name)
	return m.st.toolName.Render("⏺ "+name) + " " + m.st.toolArgs.Render(compactArgs(args, max(m.width-len(name)-4, 20)))
}

func (m *Model) toolResultBlock(e listener.ToolResult) string {
	content := listener.VisibleString(e.Content)
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	var head string
	if e.Err != nil {
		head = m.st.err.Render("  ⎿ error: ") + firstLine(listener.VisibleString(e.Err.Error()), m.width-12)
	} else {
		head = m.st.toolOK.Render("  ⎿ ") + m.st.dim.Render(summarize(content))
	}
	if !m.details {
		return head
	}
	shown := lines
	if len(shown) > 40 {
		shown = append(shown[:40:40], fmt.Sprintf("… %d more lines", len(lines)-40))
	}
	var b strings.Builder
	b.WriteString(head)
	for _, l := range shown {
		b.WriteString("\n    " + m.st.dim.Render(truncateWidth(l, m.width-4)))
	}
	return b.String()
}

func (m *Model) thinkingBlock(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	if !m.details {
		words := len(strings.Fields(text))
		return m.st.thinking.Render(fmt.Sprintf("✻ thought for %d words (ctrl+o shows thinking)", words))
	}
	return m.st.thinking.Render(wrap("✻ "+text, m.width))
}

func (m *Model) noticeBlock(style lipgloss.Style, text string) string {
	return style.Render(wrap(text, m.width))
}

// compactArgs shows a tool call's JSON arguments on one line.
func compactArgs(args string, width int) string {
	s := strings.Join(strings.Fields(listener.VisibleString(args)), " ")
	return truncateWidth(s, width)
}

// exitTrailer is the line run_shell ends its result with.
var exitTrailer = regexp.MustCompile(`(?:^|\n)\[exit status (\d+)\]\s*$`)

// summarize is a tool result in a few words: its one line, or how many
// lines it has. A command's "[exit status N]" is not a line of its
// output: it is said only when N is not 0.
func summarize(content string) string {
	status := ""
	if m := exitTrailer.FindStringSubmatchIndex(content); m != nil {
		if code := content[m[2]:m[3]]; code != "0" {
			status = " · exit status " + code
		}
		content = content[:m[0]]
	}
	content = strings.TrimRight(content, "\n")
	lines := strings.Count(content, "\n") + 1
	switch {
	case strings.TrimSpace(content) == "" || content == "(no output)":
		return "(no output)" + status
	case lines == 1:
		return truncateWidth(content, 60) + status
	}
	return fmt.Sprintf("%d lines", lines) + status
}

func firstLine(s string, width int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return truncateWidth(s, width)
}

// truncateWidth cuts s to width terminal cells (wide runes and emoji
// count double), marking the cut.
func truncateWidth(s string, width int) string {
	if width <= 1 {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// wrap breaks s into lines of at most width cells.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, "")
}

// visibleLine is s with control characters shown and line breaks as ↵:
// for names and other one-line fields a server supplies.
func visibleLine(s string) string {
	return strings.ReplaceAll(listener.VisibleString(s), "\n", "↵")
}
