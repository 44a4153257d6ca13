package tui

import "testing"

// TestSummarizeCountsTheOutputNotTheStatus: a command with no output is
// "(no output)", not "2 lines"; the exit status is said when it is not 0.
func TestSummarizeCountsTheOutputNotTheStatus(t *testing.T) {
	for content, want := range map[string]string{
		"(no output)\n[exit status 0]":         "(no output)",
		"(no output)\n[exit status 1]":         "(no output) · exit status 1",
		"hello\n[exit status 0]":               "hello",
		"a\nb\nc\n[exit status 2]":             "3 lines · exit status 2",
		"wrote 12 bytes to notes.txt":          "wrote 12 bytes to notes.txt",
		"":                                     "(no output)",
		"line one\nline two\n":                 "2 lines",
		"the text [exit status 0] in a line\n": "the text [exit status 0] in a line",
	} {
		if got := summarize(content); got != want {
			t.Errorf("summarize(%q) = %q, want %q", content, got, want)
		}
	}
}
