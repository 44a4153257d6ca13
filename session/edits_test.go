package session

import (
	"errors"
	"testing"
)

// TestHistoryEditsKeepTheInvariant: each edit leaves a history a strict
// server accepts.
func TestHistoryEditsKeepTheInvariant(t *testing.T) {
	t.Parallel()
	call := ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	build := func() *Session {
		synth := Assistant("synthesized")
		synth.Synthesized = true
		return New(System("sys"), User("q1"), Assistant("a1"), User("q2"), Assistant("", call), ToolResult(call, "r"), synth)
	}
	s := build()
	q, err := s.DropLastExchange()
	if err != nil || q.Content != "q2" || s.Len() != 3 {
		t.Fatalf("undo: %+v %v, %d left", q, err, s.Len())
	}
	if err := Validate(s.Messages(), false); err != nil {
		t.Fatal(err)
	}
	s = build()
	if err := s.DropSynthesized(); err != nil || s.Len() != 6 {
		t.Fatalf("continue: %v, %d left", err, s.Len())
	}
	if err := Validate(s.Messages(), false); err != nil {
		t.Fatal(err)
	}
	if err := s.DropSynthesized(); !errors.Is(err, ErrNotSynthesized) {
		t.Fatalf("continue twice: %v", err)
	}
	s = build()
	if got, err := s.RewindTo(s.Messages()[1].ID); err != nil || got.Content != "q1" || s.Len() != 1 {
		t.Fatalf("edit: %+v %v, %d left", got, err, s.Len())
	}
	s = build()
	if _, err := s.RewindTo(s.Messages()[2].ID); err == nil || s.Len() != 7 {
		t.Fatalf("rewound to an answer (%v), %d left", err, s.Len())
	}
	if _, err := New(System("sys")).DropLastExchange(); !errors.Is(err, ErrNoQuestion) {
		t.Fatal(err)
	}
}
