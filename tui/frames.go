package tui

import (
	"slices"
	"strings"
	"time"
)

// The renderer makes room for printed lines by scrolling the screen from
// the bottom of the frame it drew last, then moving the cursor up over
// the lines and that frame: lines and frame together must fit in the
// window, or the frame's top rows scroll into the scrollback as stale
// copies and the lines land in the wrong place. The frame it drew last is
// not the view chat has now: the renderer draws the newest view at its
// next tick, so a frame that just shrank (a code block closed) is still
// on screen, taller, for a tick or more on a loaded machine.

// frameWindow is how long a view may still be the one on screen after a
// newer one was made: three renderer ticks (1/60 s), with room for a
// loaded machine. Lines that do not fit above a frame that shrank wait
// this long once (update.go's flush), not row by row: a wait a person
// does not see, where a longer one showed a finished block vanish.
const frameWindow = 50 * time.Millisecond

// frameHeights remembers the heights of the recent views: the frame on
// screen is one of them.
type frameHeights struct {
	at   []time.Time
	rows []int
}

// add notes a view of rows rows made at now.
func (f *frameHeights) add(now time.Time, rows int) {
	// Keep the views of the window and the newest one older than it (it
	// stays on screen until a newer one is drawn); they come in time
	// order, so what goes is at the front.
	keep := 0
	for keep+1 < len(f.at) && now.Sub(f.at[keep+1]) > frameWindow {
		keep++
	}
	if n := len(f.at); n > 0 && f.rows[n-1] == rows && now.Sub(f.at[n-1]) <= frameWindow/4 {
		f.at[n-1] = now // the same height again: one entry, moved on (a burst of keys draws hundreds)
		f.at, f.rows = f.at[keep:], f.rows[keep:]
		return
	}
	f.at, f.rows = append(f.at[keep:], now), append(f.rows[keep:], rows)
}

// tallest is the most rows a frame on screen may have at now.
func (f *frameHeights) tallest(now time.Time) int {
	most := 0
	for i := len(f.at) - 1; i >= 0; i-- {
		most = max(most, f.rows[i])
		if now.Sub(f.at[i]) > frameWindow {
			break // the newest view older than the window: any before it was drawn over
		}
	}
	return most
}

// frameCache keeps the last frame's building steps: while a burst of keys
// gathers, or the cursor blinks, the parts of the frame are the same
// strings as before, and joining, cutting and counting them again cost as
// much as the frame is long (an input of 2,000 characters is ten rows).
type frameCache struct {
	parts  []string
	joined string
	tail   struct {
		content string
		rows    int
		out     string
	}
	count struct {
		s string
		n int
	}
}

// join is strings.Join(parts, "\n"), the last result when the parts are
// the same.
func (c *frameCache) join(parts []string) string {
	if c.parts == nil || !slices.Equal(parts, c.parts) {
		c.parts = append(c.parts[:0], parts...)
		c.joined = strings.Join(parts, "\n")
	}
	return c.joined
}

// lastLines is lastLinesOf(content, rows), remembered.
func (c *frameCache) lastLines(content string, rows int) string {
	if t := &c.tail; t.content != content || t.rows != rows || t.out == "" {
		t.content, t.rows, t.out = content, rows, lastLinesOf(content, rows)
	}
	return c.tail.out
}

// lines is lineCount(s), remembered.
func (c *frameCache) lines(s string) int {
	if c.count.s != s || c.count.n == 0 {
		c.count.s, c.count.n = s, lineCount(s)
	}
	return c.count.n
}
