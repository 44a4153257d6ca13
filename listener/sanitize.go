package listener

import (
	"fmt"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// isBidi reports the invisible characters that reorder text (Trojan
// Source): shown, they make a command read differently from what runs.
func isBidi(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

// SafeWriter passes everything written through a visible Sanitizer: the
// one path by which diagnostics and listings reach a terminal, so no
// server, file or model can put a live escape sequence on it. Safe for
// concurrent use.
type SafeWriter struct {
	mu sync.Mutex
	w  io.Writer
	z  Sanitizer
}

// NewSafeWriter wraps w.
func NewSafeWriter(w io.Writer) *SafeWriter { return &SafeWriter{w: w, z: Sanitizer{Visible: true}} }

// Write implements io.Writer; it reports all of p written when the
// sanitized text was.
func (s *SafeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, s.z.Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Sanitizer strips terminal control sequences from text a model or a tool
// produced, so that output can never move the cursor, set the title, write
// the clipboard (OSC 52) or clear the screen. Newlines and tabs survive;
// everything else below 0x20, DEL, C1 controls and whole ESC/CSI/OSC/DCS/
// APC/PM/SOS sequences are removed.
//
// With Visible set, nothing is removed but carriage returns: each control
// byte is shown as its Unicode control picture (ESC as ␛, BEL as ␇), which
// leaves a sequence inert but lets the person see that it was there.
//
// It keeps state between calls because a stream may split a sequence across
// deltas. The zero value is ready; it is not safe for concurrent use.
type Sanitizer struct {
	Visible bool
	state   sanState
	pending []byte // an incomplete UTF-8 rune carried to the next call
}

type sanState uint8

const (
	sanText   sanState = iota
	sanEsc             // after ESC
	sanCSI             // ESC [ … final byte
	sanString          // OSC/DCS/APC/PM/SOS … BEL or ST
	sanStrEsc          // ESC inside a string: ST is ESC \
	sanEscArg          // ESC then intermediate bytes (ESC ( B …)
)

// String sanitizes s in one go, for text that is complete.
func String(s string) string {
	var z Sanitizer
	return z.Clean(s)
}

// Clean returns the safe part of s, holding back an unfinished sequence.
func (z *Sanitizer) Clean(s string) string {
	if z.state == sanText && len(z.pending) == 0 && isPlain(s) {
		return s
	}
	var in []byte
	if len(z.pending) > 0 {
		in = append(z.pending, s...)
		z.pending = nil
	} else {
		in = []byte(s)
	}
	out := make([]byte, 0, len(in))
	if z.Visible {
		return z.visible(in, out)
	}
	for i := 0; i < len(in); {
		c := in[i]
		switch z.state {
		case sanText:
			if c < utf8.RuneSelf {
				i++
				switch {
				case c == 0x1b:
					z.state = sanEsc
				case c == '\n' || c == '\t':
					out = append(out, c)
				case c < 0x20 || c == 0x7f:
					// dropped: BEL, BS, CR, form feed …
				default:
					out = append(out, c)
				}
				continue
			}
			if !utf8.FullRune(in[i:]) {
				z.pending = append(z.pending[:0], in[i:]...)
				return string(out)
			}
			r, n := utf8.DecodeRune(in[i:])
			i += n
			switch {
			case r == 0x9b: // 8-bit CSI
				z.state = sanCSI
			case r == 0x90 || r == 0x9d || r == 0x9e || r == 0x9f || r == 0x98: // DCS OSC PM APC SOS
				z.state = sanString
			case r >= 0x80 && r < 0xa0, r == utf8.RuneError && n == 1, isBidi(r):
				// C1 controls, invalid bytes and bidi overrides are dropped.
			default:
				out = append(out, in[i-n:i]...)
			}
		case sanEsc:
			i++
			switch {
			case c == '[':
				z.state = sanCSI
			case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
				z.state = sanString
			case c >= 0x20 && c <= 0x2f:
				z.state = sanEscArg
			default:
				z.state = sanText
			}
		case sanEscArg:
			i++
			if c < 0x20 || c > 0x2f {
				z.state = sanText
			}
		case sanCSI:
			i++
			if c >= 0x40 && c <= 0x7e {
				z.state = sanText
			}
		case sanString:
			i++
			switch c {
			case 0x07:
				z.state = sanText
			case 0x1b:
				z.state = sanStrEsc
			}
		case sanStrEsc:
			i++
			if c == '\\' {
				z.state = sanText
			} else if c != 0x1b {
				z.state = sanString
			}
		}
	}
	return string(out)
}

// VisibleString shows the control bytes of a complete text as pictures.
func VisibleString(s string) string {
	z := Sanitizer{Visible: true}
	return z.Clean(s)
}

func (z *Sanitizer) visible(in, out []byte) string {
	for i := 0; i < len(in); {
		c := in[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\n' || c == '\t':
				out = append(out, c)
			case c == '\r':
			case c < 0x20:
				out = utf8.AppendRune(out, 0x2400+rune(c))
			case c == 0x7f:
				out = utf8.AppendRune(out, 0x2421)
			default:
				out = append(out, c)
			}
			continue
		}
		if !utf8.FullRune(in[i:]) {
			z.pending = append(z.pending[:0], in[i:]...)
			break
		}
		r, n := utf8.DecodeRune(in[i:])
		i += n
		switch {
		case r >= 0x80 && r < 0xa0, r == utf8.RuneError && n == 1:
			out = utf8.AppendRune(out, 0xfffd)
		case isBidi(r):
			out = fmt.Appendf(out, "[U+%04X]", r)
		default:
			out = append(out, in[i-n:i]...)
		}
	}
	return string(out)
}

// isPlain reports whether s is printable ASCII plus newline and tab: the
// common case, which needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}
