package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkKeyInBurst is a burst of 200 typed keys (no bracketed paste)
// into an input that already holds 20 or 2,000 characters, as the program
// runs it: each key's Update and frame, then the tick that puts the
// gathered keys in and its frame. cpu-µs-per-key must be about the same
// at both lengths.
func BenchmarkKeyInBurst(b *testing.B) {
	for _, length := range []int{20, 2000} {
		b.Run(fmt.Sprintf("chars=%d", length), func(b *testing.B) {
			f := newFixture(&testing.T{})
			f.m.width, f.m.height = 120, 40
			text := prose(length)
			burst := prose(200)
			b.ReportAllocs()
			var spent time.Duration
			for b.Loop() {
				b.StopTimer()
				f.m.input.set(text)
				_ = f.m.View()
				f.m.input.typing = false
				b.StartTimer()
				start := time.Now()
				for _, r := range burst {
					f.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
					_ = f.m.View()
				}
				f.m.input.lastGathered = time.Time{} // the burst has paused
				f.m.Update(typedMsg{})
				_ = f.m.View()
				spent += time.Since(start)
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N*len(burst)), "µs-per-key")
		})
	}
}

func prose(n int) string {
	return strings.Repeat("the quick brown fox jumps over a lazy dog ", n/42+1)[:n]
}
