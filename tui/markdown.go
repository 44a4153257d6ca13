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

// splitStable cuts streamed Markdown at the last blank line outside a code
// fence: what comes before will not change any more and can be rendered
// once and printed; only the tail is re-rendered while the stream goes on.
func splitStable(text string) (stable, tail string) {
	fence := false
	cut := 0
	pos := 0
	for pos < len(text) {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break // the last line is still being written
		}
		line := text[pos : pos+nl]
		next := pos + nl + 1
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = !fence
		} else if trimmed == "" && !fence && next < len(text) {
			cut = next
		}
		pos = next
	}
	return text[:cut], text[cut:]
}
