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
