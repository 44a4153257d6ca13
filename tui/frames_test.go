package tui

import (
	"testing"
	"time"
)

// TestFrameHeightsRememberWhatMayBeOnScreen: a view that shrank leaves
// the taller one counted for the window; after it, the newest older view
// is what is on screen.
func TestFrameHeightsRememberWhatMayBeOnScreen(t *testing.T) {
	var f frameHeights
	t0 := time.Unix(0, 0)
	f.add(t0, 22)                        // an open code block fills the frame
	f.add(t0.Add(5*time.Millisecond), 4) // it closed
	if got := f.tallest(t0.Add(10 * time.Millisecond)); got != 22 {
		t.Fatalf("just after the shrink: %d, want 22", got)
	}
	later := t0.Add(frameWindow + 50*time.Millisecond)
	if got := f.tallest(later); got != 4 {
		t.Fatalf("a window later: %d, want 4", got)
	}
	for i := range 1000 {
		f.add(later.Add(time.Duration(i)*time.Second), 3)
	}
	if len(f.at) > 2 {
		t.Fatalf("%d heights kept", len(f.at))
	}
}
