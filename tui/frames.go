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
// on screen, taller, for a tick or, on a loaded machine, much longer.
//
// No clock says when it has drawn; the terminal does. The renderer's tick
// writes the queries waiting in its buffer, then the newest view, so a
// query asked after a view was made is answered once that view (or a
// newer one) is on its way to the terminal, and the answer to a second
// query, asked after the first was answered, comes after that tick's
// drawing ended. Until then every view made since the last such answer
// may be what is on screen.

// drawnTimeout is how long printing waits for the terminal to answer
// before it takes the newest view as drawn: a terminal that never answers
// a cursor position report (or input that is not read) costs a second,
// once per shrink, never a print.
const drawnTimeout = time.Second

// frameHeights remembers the heights of the views that may be on screen:
// those made since the last one known drawn. Only the tallest matters, so
// a view hides the older ones no taller than it (what is kept grows
// shorter from the oldest to the newest, and is never longer than the
// window is tall).
type frameHeights struct {
	seq  []uint64 // each kept view's number
	rows []int
	next uint64 // the number of the next view
}

// add notes a view of rows rows (at most limit are drawn; 0: no limit).
func (f *frameHeights) add(rows, limit int) {
	if limit > 0 {
		rows = min(rows, limit)
	}
	n := len(f.rows)
	for n > 0 && f.rows[n-1] <= rows {
		n--
	}
	f.seq, f.rows = append(f.seq[:n], f.next), append(f.rows[:n], rows)
	f.next++
}

// mark is the number of the next view: once the terminal has answered a
// query asked after that view was made, views before it are gone.
func (f *frameHeights) mark() uint64 { return f.next }

// drawn forgets the views made before the one numbered mark.
func (f *frameHeights) drawn(mark uint64) {
	n := 0
	for n < len(f.seq)-1 && f.seq[n] < mark {
		n++
	}
	f.seq, f.rows = f.seq[n:], f.rows[n:]
}

// tallest is the most rows a frame on screen may have.
func (f *frameHeights) tallest() int {
	if len(f.rows) == 0 {
		return 0
	}
	return f.rows[0]
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
