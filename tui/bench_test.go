package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
)

// transcriptOf builds a model that has already shown n finished blocks
// (turns of a question, a tool call with its result, and an answer).
func transcriptOf(b *testing.B, n int, fullscreen bool) *fixture {
	f := newFixture(&testing.T{})
	f.m.opts.Fullscreen = fullscreen
	turn := uint64(0)
	for len(f.m.scroll.lines) < n*2 && fullscreen || !fullscreen && turn < uint64(n/4) {
		turn++
		o := listener.Origin{Turn: turn}
		f.busy(fmt.Sprintf("question %d", turn))
		f.event(listener.ToolCall{Origin: o, Name: "read_file", Arguments: `{"path":"a.go"}`})
		f.event(listener.ToolResult{Origin: o, Name: "read_file", Content: "package a\n"})
		f.event(listener.AssistantDelta{Origin: o, Text: "An answer with **bold** and `code`.\n\nSecond paragraph."})
		f.event(listener.Assistant{Origin: o, Text: "An answer."})
		f.send(turnDoneMsg{turn: turn})
		f.m.outbox = nil // printed: in the scrollback, out of the program
	}
	f.busy("the streaming question")
	return f
}

// BenchmarkDelta is the cost of one streamed delta reaching the screen:
// Update with the delta, then the frame (View). It must not grow with the
// transcript: compare blocks=10, 1000 and 10000.
func BenchmarkDelta(b *testing.B) {
	for _, fullscreen := range []bool{false, true} {
		for _, n := range []int{10, 1000, 10000} {
			b.Run(fmt.Sprintf("fullscreen=%v/blocks=%d", fullscreen, n), func(b *testing.B) {
				f := transcriptOf(b, n, fullscreen)
				o := listener.Origin{Turn: f.m.turn}
				words := strings.Fields("the quick brown fox jumps over the lazy dog and then some more words follow here")
				b.ReportAllocs()
				b.ResetTimer()
				i := 0
				for b.Loop() {
					text := words[i%len(words)] + " "
					if i%40 == 39 {
						text = "end.\n\n" // paragraphs end now and then, as in a real answer
					}
					i++
					f.m.Update(agentEventMsg{ev: listener.AssistantDelta{Origin: o, Text: text}})
					_ = f.m.View()
					f.m.outbox = f.m.outbox[:0]
				}
			})
		}
	}
}

// BenchmarkKeystrokeWhileStreaming is a key press typed into the input
// while an answer streams: Update with the key, then the frame.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	f := transcriptOf(b, 100, false)
	o := listener.Origin{Turn: f.m.turn}
	f.m.Update(agentEventMsg{ev: listener.AssistantDelta{Origin: o, Text: strings.Repeat("streaming text goes on ", 20)}})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f.m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
		_ = f.m.View()
		if f.m.input.ta.Length() > 200 {
			f.m.input.clear()
		}
	}
}

// BenchmarkPlanUpdate: one task-list update while a turn runs, from the
// event to the drawn frame (a frame is 16.7 ms at 60 per second).
func BenchmarkPlanUpdate(b *testing.B) {
	f := newFixture(&testing.T{})
	f.busy("do the work")
	o := listener.Origin{Turn: f.m.turn}
	steps := make([]listener.PlanStep, 12)
	for i := range steps {
		steps[i] = listener.PlanStep{Step: fmt.Sprintf("step %d of the work", i+1), Status: "pending"}
	}
	i := 0
	for b.Loop() {
		steps[i%12].Status = "completed"
		f.m.Update(agentEventMsg{ev: listener.Plan{Origin: o, Steps: steps}})
		_ = f.m.View()
		i++
	}
}
