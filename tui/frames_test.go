package tui

import "testing"

// TestFrameHeightsRememberWhatMayBeOnScreen: a view that shrank leaves
// the taller one counted until a view made after the shrink is known
// drawn; what is kept stays short.
func TestFrameHeightsRememberWhatMayBeOnScreen(t *testing.T) {
	var f frameHeights
	f.add(22, 24) // an open code block fills the frame
	mark := f.mark()
	f.add(4, 24) // it closed
	if got := f.tallest(); got != 22 {
		t.Fatalf("just after the shrink: %d, want 22", got)
	}
	f.drawn(mark)
	if got := f.tallest(); got != 4 {
		t.Fatalf("once the shrunk view is drawn: %d, want 4", got)
	}
	f.add(60, 24)
	if got := f.tallest(); got != 24 {
		t.Fatalf("a view taller than the window: %d, want 24 (the renderer drops the rest)", got)
	}
	for i := range 1000 {
		f.add(3+i%20, 24)
	}
	if len(f.rows) > 24 {
		t.Fatalf("%d heights kept", len(f.rows))
	}
	f.drawn(f.mark()) // no view after the mark yet: the newest stays
	if len(f.rows) != 1 || f.tallest() != 3+999%20 {
		t.Fatalf("after drawn: %v", f.rows)
	}
}
