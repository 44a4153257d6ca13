package app

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/tool"
)

// BenchmarkFixedPrompt reports what every request carries before the
// person says anything (the default system prompt with the task list's
// advert, and the built-in tools as offered), per window size: its bytes
// as sent and chat's estimate of its tokens, and the share of the window.
func BenchmarkFixedPrompt(b *testing.B) {
	set := tool.Rules{}.Set(tool.Builtins(tool.Workspace{Root: b.TempDir(), Jobs: &tool.Jobs{}})...)
	system := DefaultSystem + "\n\n" + agent.PlanAdvert
	for _, window := range []int{2048, 4096, 8192, 32768} {
		b.Run(fmt.Sprintf("window=%d", window), func(b *testing.B) {
			var specs []any
			var tokens int
			for b.Loop() {
				s, n := agent.FixedPart(set.Offered(), system, window)
				specs, tokens = nil, n
				for _, sp := range s {
					specs = append(specs, sp)
				}
			}
			body, _ := json.Marshal(specs)
			b.ReportMetric(float64(len(body)+len(system)), "fixed-bytes")
			b.ReportMetric(float64(tokens), "fixed-tokens")
			b.ReportMetric(float64(tokens)*100/float64(window), "%window")
		})
	}
}

// TestSystemPromptSizeIsPinned: the default system prompt and the task
// list's advert, in bytes; raise it with the reason in the commit.
func TestSystemPromptSizeIsPinned(t *testing.T) {
	if n := len(DefaultSystem) + len(agent.PlanAdvert); n > 470 {
		t.Errorf("the default system prompt is %d bytes, pinned at 470", n)
	}
}
