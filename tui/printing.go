package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// print queues a finished block for the scrollback (or, in fullscreen,
// adds it to the transcript).
func (m *Model) print(block string) {
	if block == "" {
		return
	}
	if m.opts.Fullscreen {
		m.scroll.add(block)
		return
	}
	m.outbox = append(m.outbox, block)
}

// flush prints the waiting blocks. One batch is in flight at a time: the
// next waits for printedMsg (or the terminal's word that a frame was
// drawn), so blocks never overtake each other.
func (m *Model) flush() tea.Cmd {
	if m.printing || len(m.outbox) == 0 {
		return nil
	}
	text := strings.Join(m.outbox, "\n")
	m.outbox = nil
	// Lines plus the frame on screen must fit in the window (frames.go):
	// a taller text goes in parts, each after the last one reached the
	// terminal.
	if m.height > 0 {
		current := lineCount(m.liveRegion())
		if onScreen := m.frames.tallest(); onScreen > current {
			// A taller frame may still be on screen: what fits above it
			// goes now, the rest once the terminal shows it has been
			// drawn over, rather than row by row.
			head, rest := "", text
			if room := m.height - onScreen - 1; room > 0 {
				head, rest, _ = splitRows(text, room, m.width)
			}
			if rest != "" {
				m.outbox = []string{rest}
				m.printing = true
				return m.waitForDrawn(head)
			}
		} else if head, rest, cut := splitRows(text, max(m.height-current-1, 1), m.width); cut {
			text = head
			m.outbox = []string{rest}
		}
	}
	m.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// drawnWait is a print waiting for the terminal to show that the views
// made before it are no longer on screen (frames.go): two cursor position
// reports, the second asked once the first is answered.
type drawnWait struct {
	waiting bool
	id      int    // which wait a drawnTimeoutMsg is for
	mark    uint64 // the first view that may still be on screen after
	rounds  int    // answers still to come
	expect  int    // the answer that ends this round
	// asked and answered count the reports over the session: an answer
	// to a wait that timed out is not taken for the next one's.
	asked, answered int
}

// waitForDrawn prints head (if any), then asks the terminal for the
// cursor position, twice, before the rest is printed.
func (m *Model) waitForDrawn(head string) tea.Cmd {
	w := &m.drawn
	w.waiting, w.id, w.mark, w.rounds = true, w.id+1, m.frames.mark(), 2
	id := w.id
	timeout := tea.Tick(m.drawnTimeout, func(time.Time) tea.Msg { return drawnTimeoutMsg{wait: id} })
	if head == "" {
		return tea.Batch(m.askTerminal(), timeout)
	}
	return tea.Batch(tea.Sequence(tea.Println(head), m.askTerminal()), timeout)
}

// askTerminal asks for a cursor position report; its answer ends the
// round.
func (m *Model) askTerminal() tea.Cmd {
	m.drawn.asked++
	m.drawn.expect = m.drawn.asked
	return tea.RequestCursorPosition
}

// onTerminalAnswer is a cursor position report: the next round, or the
// end of the wait.
func (m *Model) onTerminalAnswer() tea.Cmd {
	w := &m.drawn
	w.answered++
	if !w.waiting || w.answered < w.expect {
		return nil
	}
	if w.rounds--; w.rounds > 0 {
		return m.askTerminal()
	}
	return m.frameDrawn()
}

// frameDrawn ends the wait: the views before its mark are gone; the rest
// of the text is printed.
func (m *Model) frameDrawn() tea.Cmd {
	m.frames.drawn(m.drawn.mark)
	m.drawn.waiting = false
	m.printing = false
	return m.flush()
}

// splitRows cuts text after the line that fills rows rows of a terminal
// width wide (a longer line takes several); cut is false when it all fits.
func splitRows(text string, rows, width int) (head, rest string, cut bool) {
	used := 0
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		end := len(text)
		if j >= 0 {
			end = i + j
		}
		n := 1
		if w := ansi.StringWidth(text[i:end]); width > 0 && w > width {
			n = (w + width - 1) / width
		}
		if used+n > rows && used > 0 {
			return text[:i-1], text[i:], true
		}
		used += n
		if j < 0 {
			break
		}
		i = end + 1
	}
	return text, "", false
}
