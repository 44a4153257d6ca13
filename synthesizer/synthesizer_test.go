package synthesizer

import (
	"strings"
	"testing"

	"github.com/chatrepl/chat/session"
)

func TestTranscript(t *testing.T) {
	t.Parallel()
	call := session.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}
	long := strings.Repeat("é", maxResultChars) // two bytes a rune: trimming must not split one
	got := Transcript([]session.Message{
		session.System("be brief"),
		session.User("what is in a.go?"),
		session.Assistant("Let me read it.", call),
		session.ToolResult(call, long),
		session.ToolError(session.ToolCall{ID: "c2", Name: "grep"}, "Error: bad regex", "invalid_arguments"),
	})
	for _, want := range []string{"[system instructions]\nbe brief", "[user]\nwhat is in a.go?", "[assistant]\nLet me read it.",
		`[tool call read_file] {"path":"a.go"}`, "[tool result read_file]", "more characters trimmed]", "[tool error grep]\nError: bad regex"} {
		if !strings.Contains(got, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, got)
		}
	}
	if got != strings.ToValidUTF8(got, "?") {
		t.Fatal("trimming split a rune")
	}
	huge := make([]session.Message, 0, 200)
	for range 200 {
		huge = append(huge, session.User(strings.Repeat("x", 1000)))
	}
	if got := Transcript(huge); len(got) > maxTranscriptChars+100 || !strings.HasPrefix(got, "[… ") {
		t.Fatalf("huge transcript: %d bytes, starts %q", len(got), got[:20])
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	p := Prompt("summarize the repo", nil)
	if !strings.Contains(p, "<request>\nsummarize the repo\n</request>") || !strings.Contains(p, "<transcript>") {
		t.Fatal(p)
	}
}

// TestTranscriptFitsTheWindow: with a small window the transcript is cut
// to fit it, keeping the newest part.
func TestTranscriptFitsTheWindow(t *testing.T) {
	t.Parallel()
	var history []session.Message
	for i := 0; i < 40; i++ {
		history = append(history, session.User(strings.Repeat("word ", 300)), session.Assistant("answer"))
	}
	history = append(history, session.User("the newest question"))
	p := prompt("req", history, transcriptLimit(4096), "")
	if session.TextTokens(len(p)) > 4096*3/4 || !strings.Contains(p, "the newest question") {
		t.Fatalf("%d bytes", len(p))
	}
	if transcriptLimit(0) != maxTranscriptChars || transcriptLimit(1<<20) != maxTranscriptChars {
		t.Fatal("unknown and large windows keep the usual limit")
	}
}
