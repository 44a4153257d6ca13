package session

import (
	"errors"
	"testing"
)

// TestEditsKnowCompaction: undo, retry and edit reach only what came after
// the latest summary; a summary at the end (/compact) stands for the last
// question too, so undoing it is refused and the summary stays; after the
// summary they work as usual; Validate accepts a compacted history.
func TestEditsKnowCompaction(t *testing.T) {
	t.Parallel()
	q1, a1 := User("first"), Assistant("one")
	summary := Summary("they talked about one", Compaction{Messages: 2})
	s := New(System("sys"), q1, a1, summary)
	if err := Validate(s.Messages(), false); err != nil {
		t.Fatalf("a compacted history is valid: %v", err)
	}
	if _, err := s.DropLastExchange(); !errors.Is(err, ErrFolded) {
		t.Fatalf("undo across the summary: %v", err)
	}
	if _, err := s.RewindTo(q1.ID); !errors.Is(err, ErrFolded) {
		t.Fatalf("edit of a folded question: %v", err)
	}
	if n := s.Len(); n != 4 {
		t.Fatalf("the history changed: %d messages", n)
	}
	q2 := User("second")
	s.Append(q2, Assistant("two"))
	got, err := s.DropLastExchange()
	if err != nil || got.ID != q2.ID || s.Len() != 4 {
		t.Fatalf("undo after the summary: %v %v, %d messages", got, err, s.Len())
	}
	if _, at := LatestSummary(s.Messages()); at != 3 {
		t.Fatalf("the summary moved or went: %d", at)
	}
	bad := []Message{User("q"), Assistant("", ToolCall{ID: "c", Name: "x"}), summary, ToolResult(ToolCall{ID: "c", Name: "x"}, "r")}
	if Validate(bad, false) == nil {
		t.Fatal("a summary between a call and its result was accepted")
	}
}
