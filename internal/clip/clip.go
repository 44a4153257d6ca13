// Package clip cuts text for showing it: to a number of bytes, never in
// the middle of a UTF-8 character. It is the one place that does; it
// imports only the standard library and may be used by any package.
package clip

import (
	"strings"
	"unicode/utf8"
)

// Prefix is s cut to at most n bytes, ending on a character boundary.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// String is s cut to at most n bytes and marked with "…" when cut.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}

// FirstLine is s's first line, with " …" when more lines follow.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
