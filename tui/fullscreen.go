package tui

import (
	"strings"
)

// fullscreen is the --fullscreen transcript: the printed blocks in a
// scrollable region above the live one. Blocks are joined once when they
// arrive, not at every frame.
type fullscreen struct {
	lines  []string
	offset int // lines scrolled up from the bottom
	// height is the rows the transcript had in the last frame: the live
	// region below it takes the rest, so the window's height is not it.
	height int
}

func newFullscreen() fullscreen { return fullscreen{} }

func (f *fullscreen) add(block string) {
	f.lines = append(f.lines, strings.Split(block, "\n")...)
	if f.offset > 0 {
		f.offset += strings.Count(block, "\n") + 1 // keep the view still while reading
	}
}

// scrollBy moves the view n lines up (down when negative), as far as the
// first line of the transcript at the top of its region.
func (f *fullscreen) scrollBy(n int) {
	f.offset = min(max(f.offset+n, 0), max(len(f.lines)-f.height, 0))
}

func (f *fullscreen) view(width, height int, st styles) string {
	f.height = height
	if height <= 0 {
		return ""
	}
	f.offset = min(f.offset, max(len(f.lines)-height, 0))
	end := len(f.lines) - f.offset
	start := max(end-height, 0)
	shown := f.lines[start:end]
	out := make([]string, 0, height)
	for range height - len(shown) {
		out = append(out, "")
	}
	for _, l := range shown {
		out = append(out, truncateWidth(l, width))
	}
	if f.offset > 0 && len(out) > 0 {
		out[len(out)-1] = st.hint.Render("── scrolled: pgdown or the wheel to go back ──")
	}
	return strings.Join(out, "\n")
}
