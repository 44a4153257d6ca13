package rescue

import (
	"strings"

	"github.com/chatrepl/chat/internal/textbuf"
)

// Holdback sits between a stream and the screen: it passes text on as it
// comes, but holds back what may turn out to be a call written as text
// (from a marker on, or a whole answer that starts like JSON), so a call
// that is rescued is never shown as text, and text that is not a call is
// shown when the answer ends (Held).
type Holdback struct {
	text    textbuf.Builder
	shown   int  // bytes of text passed on
	holding bool // from shown on, everything is held
}

// longestMarker bounds how much of the end of the text may be the start
// of a marker still arriving.
var longestMarker = func() int {
	n := 0
	for _, m := range markers {
		n = max(n, len(m))
	}
	return n
}()

// Add takes a piece of the stream and returns what may be shown now.
func (h *Holdback) Add(piece string) string {
	h.text.WriteString(piece)
	if h.holding {
		return ""
	}
	all := h.text.String()
	if h.shown == 0 { // how the answer starts decides
		lead := strings.TrimLeft(all, " \t\r\n")
		switch {
		case lead == "":
			return "" // nothing to tell yet
		case lead[0] == '{' || strings.HasPrefix(lead, "[{") || strings.HasPrefix(lead, "```"):
			h.holding = true // the whole answer may be one call
			return ""
		case strings.HasPrefix("```", lead):
			return "" // a fence, or not: the next piece says
		}
	}
	from := max(0, h.shown-longestMarker)
	cut := len(all)
	partial := mayEndInMarker(all)
	for _, m := range markers {
		if i := strings.Index(all[from:], m); i >= 0 {
			cut = min(cut, from+i)
			h.holding = true
		}
		for k := len(m) - 1; k > 0 && !h.holding && partial; k-- {
			if strings.HasSuffix(all, m[:k]) {
				cut = min(cut, len(all)-k)
				break
			}
		}
	}
	if cut <= h.shown {
		return ""
	}
	out := all[h.shown:cut]
	h.shown = cut
	return out
}

// mayEndInMarker says whether the end of text holds the first byte of a
// marker, where the start of one still arriving would begin: most pieces
// of most answers do not, and need no closer look.
func mayEndInMarker(text string) bool {
	return strings.ContainsAny(text[max(0, len(text)-longestMarker+1):], markerStarts)
}

// markerStarts are the first bytes of the markers.
var markerStarts = func() string {
	var b strings.Builder
	for _, m := range markers {
		if !strings.ContainsRune(b.String(), rune(m[0])) {
			b.WriteByte(m[0])
		}
	}
	return b.String()
}()

// Held is what was held back, to show when it was not a call.
func (h *Holdback) Held() string { return h.text.String()[h.shown:] }

// Shown is what was passed on.
func (h *Holdback) Shown() string { return h.text.String()[:h.shown] }
