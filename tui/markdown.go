package tui

import (
	"strings"

	"charm.land/glamour/v2"
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
	return strings.Trim(out, "\n")
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
