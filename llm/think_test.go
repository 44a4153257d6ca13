package llm

import "testing"

// TestInlineThinkSplits: a <think> block at the start of the content is
// reasoning, in whatever pieces it arrives; text without one, or with
// one later on, stays text.
func TestInlineThinkSplits(t *testing.T) {
	for _, tt := range []struct{ in, reasoning, text string }{
		{"<think>plan it</think>\nThe answer.", "plan it", "The answer."},
		{"\n <think>a</think>b", "a", "b"},
		{"No thinking here.", "", "No thinking here."},
		{"Text then <think>x</think>", "", "Text then <think>x</think>"},
		{"<think>never closed", "never closed", ""},
		{"<thin", "", "<thin"},
		{"<think>a </thi", "a </thi", ""},
	} {
		for _, size := range []int{1, 2, 3, 5, 100} {
			var th inlineThink
			var r, x string
			for i := 0; i < len(tt.in); i += size {
				a, b := th.split(tt.in[i:min(i+size, len(tt.in))])
				r, x = r+a, x+b
			}
			a, b := th.flush()
			r, x = r+a, x+b
			if r != tt.reasoning || x != tt.text {
				t.Errorf("%q in pieces of %d: reasoning %q text %q, want %q %q", tt.in, size, r, x, tt.reasoning, tt.text)
			}
		}
	}
}
