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
}

func newFullscreen() fullscreen { return fullscreen{} }

func (f *fullscreen) add(block string) {
	f.lines = append(f.lines, strings.Split(block, "\n")...)
	if f.offset > 0 {
		f.offset += strings.Count(block, "\n") + 1 // keep the view still while reading
	}
}

// scrollBy moves the view n lines up (down when negative), as far as the
// first line of the transcript at the top of its region of height rows
// (the transcript's rows, not the window's: the live region takes the rest).
func (f *fullscreen) scrollBy(n, height int) {
	f.offset = min(max(f.offset+n, 0), max(len(f.lines)-height, 0))
}

func (f *fullscreen) view(width, height int, st styles) string {
	if height <= 0 {
		return ""
	}
	offset := min(f.offset, max(len(f.lines)-height, 0)) // the region may have shrunk
	end := len(f.lines) - offset
	start := max(end-height, 0)
	shown := f.lines[start:end]
	out := make([]string, 0, height)
	for range height - len(shown) {
		out = append(out, "")
	}
	for _, l := range shown {
		out = append(out, truncateWidth(l, width))
	}
	if offset > 0 && len(out) > 0 {
		out[len(out)-1] = st.hint.Render("── scrolled: pgdown or the wheel to go back ──")
	}
	return strings.Join(out, "\n")
}
