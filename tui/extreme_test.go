package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
)

// TestExtremeAnswersStayResponsive streams answers that never break into
// paragraphs. The live tail must stay small, so each frame renders little.
func TestExtremeAnswersStayResponsive(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"100,000 lines":     strings.Repeat("a line of the answer\n", 100000),
		"100,000-line code": "```go\n" + strings.Repeat("x := compute(y) // a line of code\n", 100000) + "```\n",
		"1 MB on one line":  strings.Repeat("word ", 200000),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.busy("go")
			maxTail := 0
			o := listener.Origin{Turn: 1}
			for i := 0; i < len(text); i += 64 << 10 { // a frame's worth of a fast stream
				f.m.Update(agentEventMsg{ev: listener.AssistantDelta{Origin: o, Text: text[i:min(i+64<<10, len(text))]}})
				_ = f.m.View()
				maxTail = max(maxTail, len(f.m.live.text))
			}
			if maxTail > 64<<10+liveTailLimit {
				t.Fatalf("the live tail grew to %d bytes", maxTail)
			}
		})
	}
}

func TestSplitStable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("code line\n", 2000) // over the limit, no blank line
	tests := []struct{ name, in, stable, tailPrefix string }{
		{"paragraphs", "one\n\ntwo\n\nthr", "one\n\ntwo\n\n", "thr"},
		{"blank line inside a fence does not cut", "```\na\n\nb\n", "", "```\na"},
		{"long text cuts at a line", strings.Repeat("x\n", 6000) + "y", strings.Repeat("x\n", 6000), "y"},
		{"long fence is closed and reopened", "```go\n" + long + "partial", "```go\n" + long + "```\n", "```go\npartial"},
		{"one endless line cuts at a space", strings.Repeat("word ", 3000) + "wo", strings.Repeat("word ", 3000) + "\n", "wo"},
	}
	for _, tt := range tests {
		stable, tail := splitStable(tt.in)
		if stable != tt.stable || !strings.HasPrefix(tail, tt.tailPrefix) {
			t.Errorf("%s: stable %q… tail %q…", tt.name, clipStr(stable, 40), clipStr(tail, 40))
		}
	}
}

func clipStr(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// TestTenMegabytePaste pastes 10 MB: it shows as a chip, the view stays
// small, and the whole text is what gets sent.
func TestTenMegabytePaste(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	big := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01234567890\n", 10<<20/84)
	f.send(tea.PasteMsg{Content: big})
	if v := f.m.View().Content; len(v) > 4096 {
		t.Fatalf("the view holds %d bytes", len(v))
	}
	f.send(press("enter"))
	if f.m.lastUser != big {
		t.Fatalf("sent %d bytes of %d", len(f.m.lastUser), len(big))
	}
	if p := f.printed(); len(p) > 4096 || !strings.Contains(p, "more lines") {
		t.Fatalf("the transcript shows %d bytes", len(p))
	}
}
