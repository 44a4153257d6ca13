package session

import (
	"strings"
	"testing"
)

// TestCompactionIsKeptAndSentAsSummary: a summary record stands for what
// precedes it in what is sent, the file keeps every message and the
// record, and a loaded session sends the same.
func TestCompactionIsKeptAndSentAsSummary(t *testing.T) {
	t.Parallel()
	_, w, s := stored(t, Header{Dir: "/w"})
	s.AppendInput(System("be brief"))
	call := ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	s.AppendInput(User("q1"))
	s.Append(Assistant("", call), ToolResult(call, "r1"), Assistant("a1"))
	s.AppendInput(User("q2"))
	s.Append(Assistant("a2"))
	q3 := User("q3")
	s.AppendInput(q3)

	msgs := s.Messages()
	if err := s.InsertSummary(msgs[3].ID, Summary("q1 was answered by a1", Compaction{Messages: 4})); err == nil {
		t.Fatal("a summary went between a call and its result")
	}
	if err := s.InsertSummary(q3.ID, Summary("q1 and q2 were answered", Compaction{Messages: 6, Before: 900, After: 100})); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(s); err != nil {
		t.Fatal(err)
	}
	sent := Sent(s.Messages())
	if len(sent) != 2 || sent[0].Role != RoleSystem || sent[1].ID != q3.ID {
		t.Fatalf("sent %+v", sent)
	}
	if !strings.HasPrefix(sent[0].Content, "be brief\n\n"+SummaryHeading) || !strings.Contains(sent[0].Content, "q1 and q2 were answered") {
		t.Fatalf("system %q", sent[0].Content)
	}
	s.Append(Assistant("a3"))

	l, err := Load(w.Path())
	if err != nil || len(l.Warnings) > 0 {
		t.Fatal(err, l.Warnings)
	}
	if len(l.Messages) != 10 || l.Messages[7].Role != RoleSummary || l.Messages[7].Compaction.Before != 900 {
		t.Fatalf("loaded %d messages: %+v", len(l.Messages), l.Messages)
	}
	if got := len(Sent(l.Messages)); got != 3 {
		t.Fatalf("a loaded session sends %d messages", got)
	}

	// A second compaction supersedes the first.
	s2 := New(l.Messages...)
	q4 := User("q4")
	s2.AppendInput(q4)
	if err := s2.InsertSummary(q4.ID, Summary("everything up to a3", Compaction{Messages: 3})); err != nil {
		t.Fatal(err)
	}
	sent = Sent(s2.Messages())
	if len(sent) != 2 || !strings.Contains(sent[0].Content, "everything up to a3") || strings.Contains(sent[0].Content, "q1 and q2") {
		t.Fatalf("sent %+v", sent)
	}
	if info, _ := readInfo(w.Path()); info.Messages != 9 {
		t.Fatalf("listed with %d messages", info.Messages)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	small := EstimateTokens([]Message{User("hi")})
	big := EstimateTokens([]Message{User(strings.Repeat("word ", 1000))})
	img := EstimateTokens([]Message{User("see", FilePart{MediaType: "image/png", Data: []byte("x")})})
	if small < 1 || big < 1000 || big > 2000 || img < imageTokens {
		t.Fatal(small, big, img)
	}
}

// TestSummaryAtTheEnd: a summary may close a history (a manual compaction
// of everything), but not one whose last calls wait for results.
func TestSummaryAtTheEnd(t *testing.T) {
	t.Parallel()
	call := ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	s := New(System("sys"), User("q"), Assistant("", call))
	if err := s.InsertSummary("", Summary("x", Compaction{})); err == nil {
		t.Fatal("a summary cut a call from its result")
	}
	s.Append(ToolResult(call, "r"), Assistant("a"))
	if err := s.InsertSummary("", Summary("q was answered", Compaction{Messages: 4})); err != nil {
		t.Fatal(err)
	}
	s.AppendInput(User("next"))
	if sent := Sent(s.Messages()); len(sent) != 2 || sent[1].Content != "next" {
		t.Fatalf("%+v", sent)
	}
}

// TestSummaryBetweenSteps: a summary that cuts a turn between its steps is
// followed, in what is sent, by the turn's question, then the steps kept.
func TestSummaryBetweenSteps(t *testing.T) {
	t.Parallel()
	c1 := ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	c2 := ToolCall{ID: "c2", Name: "read_file", Arguments: `{}`}
	step2 := Assistant("", c2)
	s := New(System("sys"), User("old"), Assistant("old answer"), User("the question"), Assistant("", c1), ToolResult(c1, "big"), step2, ToolResult(c2, "r2"))
	if err := s.InsertSummary(step2.ID, Summary("read c1: big", Compaction{Messages: 5})); err != nil {
		t.Fatal(err)
	}
	sent := Sent(s.Messages())
	var shape []string
	for _, m := range sent {
		shape = append(shape, string(m.Role)+":"+m.Content)
	}
	if got := strings.Join(shape, " | "); !strings.HasPrefix(got, "system:sys") || !strings.HasSuffix(got, " | user:the question | assistant: | tool:r2") {
		t.Fatal(got)
	}
}
