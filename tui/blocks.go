package tui

import (
	"fmt"
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/listener"
)

// blocks renders the transcript's blocks: each turns one finished thing
// into the text printed above the live region, at the frame's width, with
// details (thinking, tool output in full) shown or not. Model and tool
// text arrive here sanitized.
type blocks struct {
	st      *styles
	width   int
	details bool
}

// blocks is the renderer as the frame is now.
func (m *Model) blocks() blocks { return blocks{st: &m.st, width: m.width, details: m.details} }

func (b blocks) user(text string, midLoop bool) string {
	label, style := "›", b.st.user
	if midLoop {
		label, style = "↳", b.st.userMid
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > 12 {
		n := len(lines)
		lines = append(lines[:10:10], b.st.dim.Render(fmt.Sprintf("… %d more lines", n-10)))
	}
	var out strings.Builder
	for i, l := range lines {
		// Wrapped here at word boundaries, continuation lines indented
		// under the text (the terminal would cut mid-word, at column 0).
		for j, part := range strings.Split(wrap(l, max(b.width-2, 10)), "\n") {
			switch {
			case i == 0 && j == 0:
				out.WriteString(style.Render(label) + " " + part)
			default:
				out.WriteString("\n  " + part)
			}
		}
	}
	return out.String()
}

func (b blocks) toolCall(name, args string) string {
	name = visibleLine(name)
	return b.st.toolName.Render("⏺ "+name) + " " + b.st.toolArgs.Render(compactArgs(args, max(b.width-len(name)-4, 20)))
}

func (b blocks) toolResult(e listener.ToolResult) string {
	content := listener.VisibleString(e.Content)
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	var head string
	if e.Err != nil {
		head = b.st.err.Render("  ⎿ error: ") + firstLine(listener.VisibleString(e.Err.Error()), b.width-12)
	} else {
		head = b.st.toolOK.Render("  ⎿ ") + b.st.dim.Render(summarize(content))
	}
	if !b.details {
		return head
	}
	shown := lines
	if len(shown) > 40 {
		shown = append(shown[:40:40], fmt.Sprintf("… %d more lines", len(lines)-40))
	}
	var out strings.Builder
	out.WriteString(head)
	for _, l := range shown {
		out.WriteString("\n    " + b.st.dim.Render(truncateWidth(l, b.width-4)))
	}
	return out.String()
}

func (b blocks) thinking(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	if !b.details {
		words := len(strings.Fields(text))
		return b.st.thinking.Render(fmt.Sprintf("✻ thought for %d words (ctrl+o shows thinking)", words))
	}
	return b.st.thinking.Render(wrap("✻ "+text, b.width))
}

func (b blocks) notice(style lipgloss.Style, text string) string {
	return style.Render(wrapIndented(text, b.width))
}

// wrapIndented wraps each line of s at width, its continuation lines
// indented as the line is (a listing's rows stay in their column).
func wrapIndented(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		body := strings.TrimLeft(l, " ")
		indent := len(l) - len(body)
		if indent == 0 || indent > width/2 {
			lines[i] = wrap(l, width)
			continue
		}
		pad := strings.Repeat(" ", indent)
		lines[i] = pad + strings.ReplaceAll(wrap(body, width-indent), "\n", "\n"+pad)
	}
	return strings.Join(lines, "\n")
}

// toolOut is the last lines a running command printed ("" for none).
func (b blocks) toolOut(text string) string {
	if text == "" {
		return ""
	}
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out.WriteString(b.st.dim.Render("  │ "+truncateWidth(l, b.width-4)) + "\n")
	}
	return strings.TrimRight(out.String(), "\n")
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
