package clip

import (
	"testing"
	"unicode/utf8"
)

func TestNeverSplitsACharacter(t *testing.T) {
	t.Parallel()
	s := "aé中🙂b"
	for n := 0; n <= len(s)+1; n++ {
		p := Prefix(s, n)
		if !utf8.ValidString(p) || len(p) > n {
			t.Fatalf("Prefix(%d) = %q", n, p)
		}
		if c := String(s, n); !utf8.ValidString(c) {
			t.Fatalf("String(%d) = %q", n, c)
		}
	}
	if String("short", 10) != "short" || String("abcdef", 3) != "abc…" {
		t.Fatal(String("abcdef", 3))
	}
}
