package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/listener"
)

var update = flag.Bool("update", false, "rewrite the golden views")

// screen is what the terminal shows: the printed blocks, then the live
// region, colors stripped (the fixture renders without color anyway).
func (f *fixture) screen() string {
	return ansi.Strip(strings.Join(append(append([]string(nil), f.m.outbox...), f.m.View().Content), "\n"))
}

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	o := listener.Origin{Turn: 1}
	states := []struct {
		name  string
		build func(f *fixture)
	}{
		{"idle", func(f *fixture) {}},
		{"streaming", func(f *fixture) {
			f.busy("Explain the loop in two paragraphs.")
			f.event(listener.ThinkingDelta{Origin: o, Text: "The user wants a short explanation."})
			f.event(listener.AssistantDelta{Origin: o, Text: "The **agent loop** streams a completion, runs the tools it asks for,\n\nand goes on until the model answers without"})
			f.clock = f.clock.Add(1500 * time.Millisecond)
		}},
		{"tool-call", func(f *fixture) {
			f.busy("What is in go.mod?")
			f.event(listener.Assistant{Origin: o, ToolCalls: []listener.ToolCallInfo{{ID: "c1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}})
			f.event(listener.Usage{Origin: o, Prompt: 1200, Completion: 40, Total: 1240})
			f.event(listener.ToolCall{Origin: o, ID: "c1", Name: "read_file", Arguments: `{"path": "go.mod"}`})
			f.event(listener.ToolResult{Origin: o, ID: "c1", Name: "read_file", Content: "module github.com/chatrepl/chat\n\ngo 1.26.0\n"})
			f.event(listener.ToolCall{Origin: o, ID: "c2", Name: "list_files", Arguments: `{"path": "."}`})
		}},
		{"pending", func(f *fixture) {
			f.busy("Refactor the parser.")
			f.submit("keep the public API unchanged")
			f.typeText("then run the tests")
			f.send(press("tab"))
		}},
		{"fallback", func(f *fixture) {
			f.busy("Loop over every file.")
			f.event(listener.ToolCall{Origin: o, ID: "c9", Name: "list_files", Arguments: `{}`})
			f.event(listener.FallbackNotice{Origin: o, Reason: "the agent used its 16 steps; synthesizing an answer from what it gathered"})
			so := listener.Origin{Agent: "synthesizer", Turn: 1}
			f.event(listener.AssistantDelta{Origin: so, Text: "From the listings: a Go project with nine packages."})
			f.event(listener.Assistant{Origin: so, Text: "From the listings: a Go project with nine packages.", Synthesized: true})
			f.send(turnDoneMsg{turn: 1})
		}},
		{"plan", func(f *fixture) {
			f.busy("Add a --json flag to the export command.")
			f.event(listener.Plan{Origin: o, Steps: []listener.PlanStep{
				{Step: "read how export writes Markdown", Status: "completed"},
				{Step: "add the flag and a JSON writer", Status: "in_progress"},
				{Step: "test both formats", Status: "pending"},
				{Step: "say it in the README", Status: "pending"}}})
			f.event(listener.ToolCall{Origin: o, ID: "c1", Name: "edit_file", Arguments: `{"path": "cmd/export.go"}`})
		}},
		{"plan-long", func(f *fixture) {
			f.busy("Port every package.")
			var steps []listener.PlanStep
			for i := 1; i <= 14; i++ {
				status := "pending"
				switch {
				case i < 6:
					status = "completed"
				case i == 6:
					status = "in_progress"
				}
				steps = append(steps, listener.PlanStep{Step: fmt.Sprintf("port package %d", i), Status: status})
			}
			f.event(listener.Plan{Origin: o, Steps: steps})
		}},
		{"cancelled", func(f *fixture) {
			f.busy("Write a long story.")
			f.event(listener.AssistantDelta{Origin: o, Text: "Once upon a time, in a terminal far away"})
			f.send(press("ctrl+c"))
		}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, st := range states {
			name := fmt.Sprintf("%s-%dx%d", st.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t)
				f.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				st.build(f)
				got := f.screen() + "\n"
				for i, line := range strings.Split(got, "\n") {
					if w := ansi.StringWidth(line); w > size[0] {
						t.Fatalf("line %d is %d cells wide: %q", i, w, line)
					}
				}
				path := filepath.Join("testdata", "golden", name+".golden")
				if *update {
					_ = os.MkdirAll(filepath.Dir(path), 0o755)
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./tui -run Golden -update)", err)
				}
				if got != string(want) {
					t.Fatalf("view changed:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

// TestStreamedMarkdownKeepsParagraphs: an answer streamed in small pieces
// prints the same as the whole answer rendered at once (--no-stream),
// blank lines between paragraphs included.
func TestStreamedMarkdownKeepsParagraphs(t *testing.T) {
	t.Parallel()
	answer := "# Title\n\nFirst paragraph, with **bold** words.\n\n- one\n- two\n\n```go\nfmt.Println(1)\n```\n\nLast paragraph.\n"
	o := listener.Origin{Turn: 1}
	answerOnly := func(f *fixture) string {
		out := f.printed()
		out = out[strings.Index(out, "\n")+1:] // after the question
		lines := strings.Split(out, "\n")
		for i := range lines {
			lines[i] = strings.TrimRight(lines[i], " ")
		}
		return strings.Join(lines, "\n")
	}
	streamed := newFixture(t)
	streamed.busy("q")
	for i := 0; i < len(answer); i += 3 {
		streamed.event(listener.AssistantDelta{Origin: o, Text: answer[i:min(i+3, len(answer))]})
	}
	streamed.event(listener.Assistant{Origin: o, Text: answer})
	whole := newFixture(t)
	whole.busy("q")
	whole.event(listener.Assistant{Origin: o, Text: answer})
	if got, want := answerOnly(streamed), answerOnly(whole); got != want {
		t.Fatalf("streamed:\n%s\n--- whole:\n%s", got, want)
	}
}
