package session

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func call(id string) ToolCall { return ToolCall{ID: id, Name: "t", Arguments: "{}"} }

// shape renders a history compactly: u, a(c1 c2), t:c1.
func shape(msgs []Message) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			parts = append(parts, "u")
		case RoleSystem:
			parts = append(parts, "s")
		case RoleAssistant:
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			parts = append(parts, "a("+strings.Join(ids, " ")+")")
		case RoleTool:
			p := "t:" + m.ToolCallID
			if m.ErrorType == ErrorTypeInterrupted {
				p += "!"
			}
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

func TestFillOrphans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     []Message
		want   string
		filled []string
	}{
		{"nothing to fill", []Message{User("q"), Assistant("a")}, "u a()", nil},
		{"one orphan after a result",
			[]Message{User("q"), Assistant("", call("1"), call("2")), ToolResult(call("1"), "ok")},
			"u a(1 2) t:1 t:2!", []string{"2"}},
		{"orphans in the middle stay next to their parent",
			[]Message{User("q"), Assistant("", call("1")), User("more"), Assistant("", call("2")), ToolResult(call("2"), "ok")},
			"u a(1) t:1! u a(2) t:2", []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, filled := FillOrphans(tt.in)
			if shape(got) != tt.want || fmt.Sprint(filled) != fmt.Sprint(tt.filled) {
				t.Fatalf("got %s %v, want %s %v", shape(got), filled, tt.want, tt.filled)
			}
			if err := Validate(got, false); err != nil {
				t.Fatal(err)
			}
			if got[len(got)-1].Role == RoleTool && got[len(got)-1].Content != InterruptedPlaceholder && len(filled) > 0 && tt.name == "one orphan after a result" {
				t.Fatal("placeholder content")
			}
		})
	}
}

func TestPruneOrphans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Message
		want string
	}{
		{"valid stays", []Message{User("q"), Assistant("", call("1")), ToolResult(call("1"), "x"), Assistant("done")}, "u a(1) t:1 a()"},
		{"pending on the boundary kept", []Message{User("q"), Assistant("", call("1"), call("2")), ToolResult(call("1"), "x")}, "u a(1 2) t:1"},
		{"broken exchange dropped", []Message{User("q"), Assistant("", call("1"), call("2")), ToolResult(call("1"), "x"), User("again"), Assistant("fine")}, "u u a()"},
		{"parentless result dropped", []Message{User("q"), ToolResult(call("9"), "x"), Assistant("a")}, "u a()"},
		{"result after a user message does not count", []Message{User("q"), Assistant("", call("1")), User("x"), ToolResult(call("1"), "late"), Assistant("a")}, "u u a()"},
		// S6: the stray result ends the history: the boundary is not the
		// assistant behind the user message, whose call stays unanswered.
		{"a stray result after a user message at the end", []Message{User("q"), Assistant("", call("1")), User("x"), ToolResult(call("1"), "late")}, "u u"},
		{"a result before its call", []Message{User("q"), ToolResult(call("1"), "early"), Assistant("", call("1")), ToolResult(call("1"), "r"), Assistant("a")}, "u a(1) t:1 a()"},
		{"a call answered twice keeps the first", []Message{User("q"), Assistant("", call("1")), ToolResult(call("1"), "r"), ToolResult(call("1"), "again"), Assistant("a")}, "u a(1) t:1 a()"},
		{"a result repeated behind a user message", []Message{User("q"), Assistant("", call("1")), ToolResult(call("1"), "r"), User("x"), ToolResult(call("1"), "late"), Assistant("a")}, "u a(1) t:1 u a()"},
		{"a call id used twice", []Message{User("q"), Assistant("", call("1")), ToolResult(call("1"), "r"), User("x"), Assistant("", call("1")), ToolResult(call("1"), "r2")}, "u a(1) t:1 u"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PruneOrphans(tt.in)
			if shape(got) != tt.want {
				t.Fatalf("got %s, want %s", shape(got), tt.want)
			}
			if err := Validate(got, true); err != nil {
				t.Fatal(err)
			}
		})
	}
	pending := PendingCalls([]Message{User("q"), Assistant("", call("1"), call("2")), ToolResult(call("1"), "x")})
	if len(pending) != 1 || pending[0].ID != "2" {
		t.Fatalf("PendingCalls = %v", pending)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	in := []Message{System("s"), User("a"), User("b", FilePart{MediaType: "text/plain"}), Assistant("x", call("1")),
		ToolResult(call("1"), "r1"), ToolResult(call("1"), "r1b"), Assistant("y"), Assistant("z")}
	got := Merge(in)
	if shape(got) != "s u a(1) t:1 t:1 a()" {
		t.Fatalf("shape %s", shape(got))
	}
	if got[1].Content != "a\n\nb" || len(got[1].Files) != 1 || got[5].Content != "y\n\nz" {
		t.Fatalf("merged contents %q %q", got[1].Content, got[5].Content)
	}
	if in[1].Content != "a" {
		t.Fatal("Merge changed its input")
	}
}

func TestHooksAndMutators(t *testing.T) {
	t.Parallel()
	var seen []Role
	s := New(System("sys")).OnMessage(func(m Message) { seen = append(seen, m.Role) })
	s.AppendInput(User("q"))
	a := Assistant("", call("1"), call("2"))
	s.Append(a, ToolResult(call("1"), "x"))
	if filled := s.Heal(); len(filled) != 1 || filled[0] != "2" {
		t.Fatalf("Heal filled %v", filled)
	}
	if fmt.Sprint(seen) != "[assistant tool]" {
		t.Fatalf("hooks saw %v: inputs and placeholders must not fire them", seen)
	}
	if err := s.UpdateToolResult("2", func(m *Message) { m.Content, m.Error, m.ErrorType = "real", "", "" }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(a.ID, func(m *Message) { m.ToolCalls = m.ToolCalls[:1] }); err != nil {
		t.Fatal(err)
	}
	if shape(s.Messages()) != "s u a(1) t:1" {
		t.Fatalf("after update: %s", shape(s.Messages()))
	}
	if err := s.Remove(s.Messages()[3].ID); err == nil {
		t.Fatal("removing a lone tool result must fail")
	}
	if err := s.Remove(a.ID); err != nil || shape(s.Messages()) != "s u" {
		t.Fatalf("remove: %v %s", err, shape(s.Messages()))
	}
	if err := s.Remove("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove unknown: %v", err)
	}
	if len(seen) != 2 {
		t.Fatal("mutators fired hooks")
	}
}

func TestIDsAreUUIDv7(t *testing.T) {
	t.Parallel()
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || a[14] != '7' || b < a {
		t.Fatalf("ids %s %s", a, b)
	}
}

// historyFrom builds an arbitrary, often broken, history from fuzz bytes.
func historyFrom(data []byte) []Message {
	var msgs []Message
	for i, b := range data {
		id := fmt.Sprint(b % 7)
		switch b % 5 {
		case 0:
			msgs = append(msgs, User("u"))
		case 1:
			msgs = append(msgs, Assistant("a"))
		case 2:
			msgs = append(msgs, Assistant("", call(id), call(fmt.Sprint(i, "x"))))
		case 3, 4:
			msgs = append(msgs, ToolResult(call(id), "r"))
		}
	}
	return msgs
}

func FuzzRepair(f *testing.F) {
	f.Add([]byte{0, 2, 3, 0})
	f.Add([]byte{2, 2, 3, 4, 1})
	f.Add([]byte{3, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := historyFrom(data)
		filled, _ := FillOrphans(PruneOrphans(msgs))
		if err := Validate(filled, false); err != nil {
			t.Fatalf("Fill(Prune(%s)): %v", shape(msgs), err)
		}
		pruned := PruneOrphans(msgs)
		if err := Validate(pruned, true); err != nil {
			t.Fatalf("Prune(%s) = %s: %v", shape(msgs), shape(pruned), err)
		}
		if err := Validate(Merge(filled), false); err != nil {
			t.Fatalf("Merge broke %s: %v", shape(filled), err)
		}
	})
}

// FuzzFillOrphans drops arbitrary tool results from an agent-shaped history
// (what a cancel leaves behind) and checks FillOrphans alone restores the
// invariant.
func FuzzFillOrphans(f *testing.F) {
	f.Add([]byte{3, 1, 0, 2}, uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, keep uint64) {
		var msgs []Message
		n := 0
		for i, b := range data {
			msgs = append(msgs, User("u"))
			calls := make([]ToolCall, b%4)
			for j := range calls {
				calls[j] = call(fmt.Sprint(i, "-", j))
			}
			msgs = append(msgs, Assistant("", calls...))
			for _, c := range calls {
				if keep>>(n%64)&1 == 1 {
					msgs = append(msgs, ToolResult(c, "r"))
				}
				n++
			}
		}
		filled, ids := FillOrphans(msgs)
		if err := Validate(filled, false); err != nil {
			t.Fatalf("%s -> %s: %v", shape(msgs), shape(filled), err)
		}
		if len(filled) != len(msgs)+len(ids) {
			t.Fatal("FillOrphans lost or invented messages")
		}
	})
}

func TestTruncateAtAndSetSystem(t *testing.T) {
	t.Parallel()
	u := User("q")
	s := New(System("old"), u, Assistant("", call("1")), ToolResult(call("1"), "r"), Assistant("a"))
	if _, err := s.TruncateAt(s.Messages()[3].ID); err == nil {
		t.Fatal("cut at a tool result")
	}
	gone, err := s.TruncateAt(u.ID)
	if err != nil || len(gone) != 4 || shape(s.Messages()) != "s" {
		t.Fatalf("%v %d %s", err, len(gone), shape(s.Messages()))
	}
	s.SetSystem("new")
	if m := s.Messages(); len(m) != 1 || m[0].Content != "new" {
		t.Fatal(m)
	}
	e := New(User("x"))
	e.SetSystem("first")
	if shape(e.Messages()) != "s u" {
		t.Fatal(shape(e.Messages()))
	}
}

// TestUnansweredIsKeptButNotSent: trailing questions with no answer are
// marked, stay in history, and Merge leaves them out of what is sent.
func TestUnansweredIsKeptButNotSent(t *testing.T) {
	t.Parallel()
	s := New(System("sys"), User("q1"), Assistant("a1"), User("failed"), User("also failed"))
	rev := s.Revision()
	marked := s.MarkUnanswered()
	if len(marked) != 2 || marked[0].Content != "failed" || s.Revision() == rev {
		t.Fatalf("marked %+v", marked)
	}
	if again := s.MarkUnanswered(); len(again) != 0 {
		t.Fatal("marked twice")
	}
	s.AppendInput(User("next"))
	sent := Merge(s.Messages())
	if len(sent) != 4 || sent[3].Content != "next" || s.Len() != 6 {
		t.Fatalf("sent %+v", sent)
	}
	if err := Validate(sent, false); err != nil {
		t.Fatal(err)
	}
}

// TestSentAndSinceAreCopiesOfTheirPart: the session's own Sent is Sent of
// its history, Since the tail from an index, and neither lets a caller
// change the history.
func TestSentAndSinceAreCopiesOfTheirPart(t *testing.T) {
	t.Parallel()
	s := New(System("be brief"), User("one"), Assistant("1"), User("two"), Assistant("2"))
	if got, want := s.Sent(), Sent(s.Messages()); !reflect.DeepEqual(got, want) {
		t.Fatalf("Sent without a summary: %+v, want %+v", got, want)
	}
	if err := s.InsertSummary(s.Messages()[3].ID, Summary("they said one", Compaction{})); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Sent(), Sent(s.Messages()); !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Fatalf("Sent after a summary: %+v, want %+v", got, want)
	}
	tail, n, rev := s.Since(4)
	if all := s.Messages(); n != len(all) || rev != s.Revision() || !reflect.DeepEqual(tail, all[4:]) {
		t.Fatalf("Since(4) = %d messages of %d at revision %d", len(tail), n, rev)
	}
	if tail, n, _ := s.Since(n + 3); tail != nil || n != 6 {
		t.Fatalf("Since past the end: %v, %d", tail, n)
	}
	s.Sent()[0].Content = "changed"
	tail[0].Content = "changed"
	for _, m := range s.Messages() {
		if m.Content == "changed" {
			t.Fatal("a copy changed the history")
		}
	}
}
