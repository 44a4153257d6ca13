package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad10000 loads a session of 10,000 messages (user questions,
// assistant answers with tool calls, tool results of ~1 KB) and prunes it,
// as --continue does.
func BenchmarkLoad10000(b *testing.B) {
	st := Store{Dir: b.TempDir()}
	w, err := st.Create(Header{Dir: "/x"})
	if err != nil {
		b.Fatal(err)
	}
	var msgs []Message
	for i := 0; len(msgs) < 10000; i++ {
		c := ToolCall{ID: fmt.Sprint("call_", i), Name: "read_file", Arguments: `{"path":"file.go"}`}
		msgs = append(msgs, User(fmt.Sprint("question ", i)), Assistant("Let me read it.", c),
			ToolResult(c, strings.Repeat("package main // a line of the file\n", 30)), Assistant("It is a Go file."))
	}
	s := New(msgs...)
	if err := w.Sync(s); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(st.Dir, w.ID()+".jsonl")
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(path)
		if err != nil || len(l.Messages) != len(msgs) {
			b.Fatal(err)
		}
		New(l.Messages...).Prune()
	}
}

// BenchmarkAppendLongSession is one exchange added to a 10,000-message
// session that was compacted, saved as the agent saves it, with what the
// next request carries read back: its cost must not grow with the part of
// the history a summary stands for.
func BenchmarkAppendLongSession(b *testing.B) {
	st := Store{Dir: b.TempDir()}
	w, err := st.Create(Header{Dir: "/x"})
	if err != nil {
		b.Fatal(err)
	}
	var msgs []Message
	for i := 0; len(msgs) < 10000; i++ {
		msgs = append(msgs, User(fmt.Sprint("question ", i)), Assistant(strings.Repeat("An answer of a few words. ", 30)))
	}
	s := New(msgs...)
	if err := s.InsertSummary("", Summary("What was said.", Compaction{})); err != nil {
		b.Fatal(err)
	}
	w.Attach(s)
	if err := w.Sync(s); err != nil {
		b.Fatal(err)
	}
	base := s.Len()
	b.ReportAllocs()
	for b.Loop() {
		s.Append(Assistant("one more"))       // saved by the hook, as the agent's are
		if sent := s.Sent(); len(sent) != 3 { // the summary, the question it cut from its answer, the answer
			b.Fatal(len(sent))
		}
		// Take it back, so every round appends to the same history (the
		// file keeps growing, which costs nothing here).
		s.mu.Lock()
		s.msgs = s.msgs[:base]
		s.mu.Unlock()
		w.mu.Lock()
		w.count = base
		w.mu.Unlock()
	}
}
