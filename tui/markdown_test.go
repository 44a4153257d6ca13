package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestTrimLineEnds(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"  • item 1" + strings.Repeat(" ", 100), "  • item 1"},
		{"\x1b[38;5;252m  Para line.\x1b[0m\x1b[38;5;252m" + strings.Repeat(" ", 90) + "\x1b[0m", "\x1b[38;5;252m  Para line.\x1b[0m\x1b[38;5;252m\x1b[0m"},
		{strings.Repeat(" ", 116), ""},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\   ", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"},
		{"no padding", "no padding"},
		{"a  b   \nc ", "a  b\nc"},
	}
	for _, tt := range tests {
		if got := trimLineEnds(tt.in); got != tt.want {
			t.Errorf("trimLineEnds(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRenderedLinesEndAtTheirText: no rendered line is padded to the wrap
// width (a terminal narrowed under a padded frame rewraps every line into
// two rows and the frame leaves copies of itself in the scrollback).
//
// Not parallel: glamour registers its chroma style on the first code block
// it renders, unguarded, which races with TestHighlightingAsUpstream
// reading the registry (the REPL renders on one goroutine).
func TestRenderedLinesEndAtTheirText(t *testing.T) {
	for _, style := range []string{"dark", "light", "notty", "ascii"} {
		md := markdown{style: style}
		out := md.render("- item 1 of the list\n- item 2\n\nPara line.\n\n```go\nfmt.Println(1) // x\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", 120)
		for _, line := range strings.Split(ansi.Strip(out), "\n") {
			if strings.HasSuffix(line, " ") {
				t.Errorf("%s: %q ends in spaces", style, line)
			}
		}
	}
}
