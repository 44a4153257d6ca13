package tui

import (
	"strings"

	"charm.land/glamour/v2"

	"github.com/chatrepl/chat/internal/lazyre"
)

// markdown renders Markdown for one width with one glamour renderer, made
// again only when the width or the style changes (making one is costly).
// It is not safe for concurrent use; only Update and View touch it.
type markdown struct {
	style string // glamour standard style: dark, light, notty, ascii
	width int
	r     *glamour.TermRenderer
}

func (md *markdown) render(text string, width int) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	width = max(width, 20)
	if md.r == nil || md.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(md.style), glamour.WithWordWrap(width-2), glamour.WithPreservedNewLines())
		if err != nil {
			return text
		}
		md.r, md.width = r, width
	}
	out, err := md.r.Render(text)
	if err != nil {
		return text
	}
	return trimLineEnds(strings.Trim(out, "\n"))
}

// escapeSequence is a CSI or OSC sequence (colours, hyperlinks).
var escapeSequence = lazyre.New(`\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// trimLineEnds drops the spaces glamour pads every line with to the wrap
// width, keeping the escape sequences among them (the resets). Padded
// lines are as wide as the terminal: narrowed, the terminal rewraps each
// into two rows, so the live frame outgrows the screen and leaves copies
// of itself in the scrollback; copied from the terminal, every line ends
// in a hundred spaces.
func trimLineEnds(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = trimLineEnd(line)
	}
	return strings.Join(lines, "\n")
}

func trimLineEnd(line string) string {
	if !strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "m") && !strings.HasSuffix(line, "\\") && !strings.HasSuffix(line, "\x07") {
		return line
	}
	seqs := escapeSequence().FindAllStringIndex(line, -1)
	var kept []string // the sequences after the last visible character, in reverse
	end := len(line)
	for end > 0 {
		if n := len(seqs); n > 0 && seqs[n-1][1] == end {
			kept = append(kept, line[seqs[n-1][0]:end])
			end = seqs[n-1][0]
			seqs = seqs[:n-1]
			continue
		}
		if line[end-1] != ' ' {
			break
		}
		end--
	}
	if end == len(line) {
		return line
	}
	var b strings.Builder
	b.WriteString(line[:end])
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString(kept[i])
	}
	return b.String()
}

func (md *markdown) setStyle(style string) {
	if md.style != style {
		md.style, md.r = style, nil
	}
}

// liveTailLimit bounds the live tail: past it, text is committed at the
// last line break even without a blank line (inside a code fence the fence
// is closed in the committed part and opened again in the tail), or, in a
// single endless line, at the last space. A frame never re-renders more.
const liveTailLimit = 8 << 10

// splitStable cuts streamed Markdown where what comes before will not
// change any more: it can be rendered once and printed, and only the tail
// is re-rendered while the stream goes on. The natural cut is the last
// blank line outside a code fence.
func splitStable(text string) (stable, tail string) {
	fence := ""       // the opening line of the fence we are in
	blankCut := 0     // after the last blank line outside a fence
	lineCut := 0      // after the last complete line
	fenceAtLine := "" // the fence open at lineCut
	for pos := 0; pos < len(text); {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break // the last line is still being written
		}
		line := text[pos : pos+nl]
		next := pos + nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if fence == "" {
				fence = trimmed
			} else {
				fence = ""
			}
		case trimmed == "" && fence == "" && next < len(text):
			blankCut = next
		}
		lineCut, fenceAtLine = next, fence
		pos = next
	}
	if len(text)-blankCut <= liveTailLimit {
		return text[:blankCut], text[blankCut:]
	}
	// No paragraph break for too long: cut at a line break anyway.
	if lineCut > blankCut {
		if fenceAtLine == "" {
			return text[:lineCut], text[lineCut:]
		}
		marker := fenceAtLine[:3]
		return text[:lineCut] + marker + "\n", fenceAtLine + "\n" + text[lineCut:]
	}
	// One endless line: cut at its last space.
	if sp := strings.LastIndexByte(text, ' '); sp > blankCut {
		return text[:sp+1] + "\n", text[sp+1:]
	}
	return text[:blankCut], text[blankCut:]
}
