package listener

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "hello\n\tworld", "hello\n\tworld"},
		{"unicode", "héllo — 世界 🙂", "héllo — 世界 🙂"},
		{"csi color", "\x1b[31mred\x1b[0m", "red"},
		{"clear screen", "a\x1b[2J\x1b[Hb", "ab"},
		{"osc title bel", "\x1b]0;pwned\x07ok", "ok"},
		{"osc52 clipboard st", "\x1b]52;c;ZXZpbA==\x1b\\ok", "ok"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\ok", "ok"},
		{"charset", "\x1b(Bok", "ok"},
		{"carriage return", "safe\rEVIL", "safeEVIL"},
		{"c1 csi", "a\u009b2Jb", "ab"},
		{"c1 osc", "a\u009d0;t\u0007b", "ab"},
		{"bell backspace", "a\x07\x08b", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := String(tt.in); got != tt.want {
				t.Fatalf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// Split at every byte: a stream may cut anywhere.
			for cut := range len(tt.in) {
				var z Sanitizer
				got := z.Clean(tt.in[:cut]) + z.Clean(tt.in[cut:])
				if got != tt.want {
					t.Fatalf("split at %d: %q, want %q", cut, got, tt.want)
				}
			}
		})
	}
}

func TestVisible(t *testing.T) {
	t.Parallel()
	in := "title\x1b]0;pwned\x07 clear\x1b[2J\r\nok\tx\u009b"
	want := "title␛]0;pwned␇ clear␛[2J\nok\tx\ufffd"
	if got := VisibleString(in); got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	for cut := range len(in) {
		z := Sanitizer{Visible: true}
		if got := z.Clean(in[:cut]) + z.Clean(in[cut:]); got != want {
			t.Fatalf("split at %d: %q", cut, got)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;AAAA\x07", 3)
	f.Add("x\u009b1;2Hy", 1)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		var z Sanitizer
		out := z.Clean(s[:cut]) + z.Clean(s[cut:])
		if strings.ContainsAny(out, "\x1b\r\x07\u009b\u009d\u0090") {
			t.Fatalf("control byte survived: %q -> %q", s, out)
		}
		v := Sanitizer{Visible: true}
		if out := v.Clean(s[:cut]) + v.Clean(s[cut:]); strings.ContainsAny(out, "\x1b\r\x07\u009b\u009d\u0090") {
			t.Fatalf("visible: control byte survived: %q -> %q", s, out)
		}
	})
}
