package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// everyKind is one message of each type with every field set.
func everyKind() []Message {
	call := ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`}
	a := Assistant("Let me look.", call)
	a.Reasoning, a.Usage, a.Finish = "thinking…", &Usage{Prompt: 10, Completion: 5, Total: 15}, "tool_calls"
	partial := Assistant("cut sho")
	partial.Interrupted = true
	synth := Assistant("synthesized")
	synth.Synthesized = true
	msgs := []Message{
		System("be brief"),
		User("what is in a.go? 世界 🙂", FilePart{MediaType: "image/png", Filename: "x.png", Data: []byte{0x89, 'P', 'N', 'G'}}),
		a,
		ToolError(call, "Error: no such file", "execution_error"),
		partial, User("go on"), synth,
	}
	for i := range msgs {
		msgs[i].Time = msgs[i].Time.Round(0).UTC()
	}
	return msgs
}

func TestStoreRoundTrip(t *testing.T) {
	t.Parallel()
	st, w, s := stored(t, Header{Dir: "/work/x", Model: "m"})
	want := everyKind()
	for _, m := range want {
		if m.Role == RoleAssistant || m.Role == RoleTool {
			s.Append(m)
		} else {
			s.AppendInput(m)
		}
	}
	l, err := Load(w.Path())
	if err != nil || len(l.Warnings) > 0 {
		t.Fatal(err, l.Warnings)
	}
	if !reflect.DeepEqual(l.Messages, want) {
		t.Fatalf("round trip differs:\n%+v\n%+v", l.Messages, want)
	}
	if l.Header.ID != w.ID() || l.Header.Dir != "/work/x" || l.Header.SchemaVersion != SchemaVersion {
		t.Fatalf("header %+v", l.Header)
	}
	for path, mode := range map[string]os.FileMode{st.Dir: 0o700, w.Path(): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Fatalf("%s mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
	// A mutation rewrites; an append after it appends again.
	if _, err := s.TruncateAt(want[5].ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(s); err != nil {
		t.Fatal(err)
	}
	s.AppendInput(User("after the rewrite"))
	s.Settle() // an input is written behind
	l, _ = Load(w.Path())
	if len(l.Messages) != 6 || l.Messages[5].Content != "after the rewrite" {
		t.Fatalf("after rewrite: %d messages", len(l.Messages))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(st.Dir, ".tmp-*")); len(leftovers) > 0 {
		t.Fatalf("temp files left: %v", leftovers)
	}
}

func TestLoadDamagedFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := `{"type":"header","schema_version":1,"id":"s1","created":"2026-11-22T00:00:00Z","cwd":"/x"}` + "\n"
	msg := func(id, role, content string) string {
		b, _ := json.Marshal(line{Type: "message", Message: Message{ID: id, Role: Role(role), Content: content}})
		return string(b) + "\n"
	}
	tests := []struct {
		name, content string
		messages      int
		warning, err  string
	}{
		{"torn last line", header + msg("1", "user", "hi") + msg("2", "assistant", "hello")[:20], 1, "partially written last line", ""},
		{"garbage in the middle", header + msg("1", "user", "hi") + "{not json\n" + msg("2", "assistant", "hello"), 2, "line 3: not a message", ""},
		{"unknown schema", strings.Replace(header, `"schema_version":1`, `"schema_version":7`, 1), 0, "", "schema version 7"},
		{"no id", header + `{"type":"message","role":"user","content":"x"}` + "\n", 0, "", "without an id"},
		{"not a session", "hello\n", 0, "", "not a session header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tt.name, " ", "-")+".jsonl", tt.content)
			l, err := Load(p)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), p) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || len(l.Messages) != tt.messages || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], tt.warning) || !strings.Contains(l.Warnings[0], p) {
				t.Fatalf("%v %d %v", err, len(l.Messages), l.Warnings)
			}
		})
	}
}

func TestListFindLatest(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	mk := func(id, dir, first string, age time.Duration) {
		w, err := st.Create(Header{ID: id, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		s := New()
		w.Attach(s)
		s.AppendInput(User(first))
		s.Append(Assistant("ok"))
		old := time.Now().Add(-age)
		_ = os.Chtimes(w.Path(), old, old)
	}
	mk("0195-aaaa", "/p/one", "first question in one, which is long enough to be cut when it becomes a title", time.Hour)
	mk("0195-aabb", "/p/one", "newer in one", time.Minute)
	mk("0196-cccc", "/p/two", "in two", 0)
	all, err := st.List()
	if err != nil || len(all) != 3 || all[0].ID != "0196-cccc" || all[2].Messages != 2 || !strings.HasSuffix(all[2].Title, "…") {
		t.Fatalf("%v %+v", err, all)
	}
	if got, _ := st.Latest("/p/one"); got.ID != "0195-aabb" {
		t.Fatalf("latest %+v", got)
	}
	if _, err := st.Find("0195-aa"); err == nil || !strings.Contains(err.Error(), "matches 2 sessions") {
		t.Fatalf("ambiguous: %v", err)
	}
	if got, err := st.Find("0196"); err != nil || got.ID != "0196-cccc" {
		t.Fatal(got, err)
	}
	if _, err := st.Find("zz"); !errors.Is(err, ErrNoSession) {
		t.Fatal(err)
	}
}

// FuzzMutators applies random mutations to a valid history and checks the
// invariant holds after each.
func FuzzMutators(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var msgs []Message
		for i := range 6 {
			c1, c2 := ToolCall{ID: "a" + string(rune('0'+i)), Name: "t"}, ToolCall{ID: "b" + string(rune('0'+i)), Name: "t"}
			msgs = append(msgs, User("u"), Assistant("", c1, c2), ToolResult(c1, "r"), ToolResult(c2, "r"), Assistant("done"))
		}
		s := New(msgs...)
		for _, op := range ops {
			cur := s.Messages()
			if len(cur) == 0 {
				return
			}
			m := cur[int(op>>3)%len(cur)]
			switch op % 4 {
			case 0:
				_ = s.Remove(m.ID)
			case 1:
				_ = s.Update(m.ID, func(x *Message) {
					if len(x.ToolCalls) > 0 {
						x.ToolCalls = x.ToolCalls[:len(x.ToolCalls)-1]
					}
				})
			case 2:
				_, _ = s.TruncateAt(m.ID)
			case 3:
				_ = s.UpdateToolResult(m.ToolCallID, func(x *Message) { x.Content = "new" })
			}
			if err := Validate(s.Messages(), false); err != nil {
				t.Fatalf("after op %d on %s: %v", op%4, m.Role, err)
			}
		}
	})
}

// FuzzLoad feeds arbitrary bytes to the session loader: it never panics,
// and what it returns has ids and is either an error or messages.
func FuzzLoad(f *testing.F) {
	header := `{"type":"header","schema_version":1,"id":"s","created":"2026-01-01T00:00:00Z","cwd":"/"}` + "\n"
	f.Add([]byte(header + `{"type":"message","id":"1","role":"user","content":"hi"}` + "\n"))
	f.Add([]byte(header + `{"type":"message","id":"1","role":"assistant","tool_calls":[{"id":"c","name":"t","arguments":"{}"}]}` + "\n{\"type\":\"mess"))
	f.Add([]byte("garbage\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Load(p)
		if err != nil {
			return
		}
		for _, m := range l.Messages {
			if m.ID == "" {
				t.Fatal("a message without id was loaded")
			}
		}
		// What a resume does with it must make a valid history.
		if err := Validate(PruneOrphans(l.Messages), true); err != nil {
			t.Fatal(err)
		}
	})
}

// TestContinueKeepsDamagedLines: continuing a session with lines that do
// not parse keeps the original, byte for byte, before rewriting it.
func TestContinueKeepsDamagedLines(t *testing.T) {
	t.Parallel()
	st, w, s := stored(t, Header{Dir: "/x"})
	s.AppendInput(User("first"))
	s.Append(Assistant("answer"))
	data, _ := os.ReadFile(w.Path())
	damaged := strings.Replace(string(data), `"role":"assistant"`, `"role":"assistan\u0074x"`, 1) + `{"type":"message","id":"m9","role":"user","content":"fl` + "\x00" + `pped"}` + "\n"
	os.WriteFile(w.Path(), []byte(damaged), 0o600)
	l, err := Load(w.Path())
	if err != nil || len(l.Warnings) == 0 {
		t.Fatal(err, l.Warnings)
	}
	w2, backup, err := st.Continue(l)
	if err != nil || backup == "" {
		t.Fatal(err, backup)
	}
	if err := w2.Sync(New(l.Messages...)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(backup); string(b) != damaged {
		t.Fatalf("the backup differs from the original:\n%s", b)
	}
	if fi, _ := os.Stat(backup); fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v", fi.Mode().Perm())
	}
	// A clean file needs no backup.
	clean, _ := Load(w2.Path())
	if _, backup, _ := st.Continue(clean); backup != "" || len(clean.Warnings) != 0 {
		t.Fatal("a backup of a clean file", clean.Warnings)
	}
}

// TestStoreDirMustBePrivate: a sessions directory others can write to is
// made private before use.
func TestStoreDirMustBePrivate(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	os.MkdirAll(st.Dir, 0o755)
	os.Chmod(st.Dir, 0o777)
	if _, err := st.Create(Header{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(st.Dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if _, err := st.Find(""); err == nil {
		t.Fatal("an empty id found a session")
	}
	if got := ShortID("abc"); got != "abc" {
		t.Fatal(got)
	}
}

// TestEveryAppendIsSynced: each message appended to a session file is
// fsynced before Sync returns.
func TestEveryAppendIsSynced(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	w, err := st.Create(Header{Dir: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	var synced atomic.Int32
	w.sync = func(f *os.File) error { synced.Add(1); return f.Sync() }
	s := New()
	w.Attach(s)
	s.AppendInput(User("q"))
	s.Settle() // an input is written behind
	if n := synced.Load(); n != 1 {
		t.Fatalf("%d fsyncs for 1 input", n)
	}
	s.Append(Assistant("a"))
	if n := synced.Load(); n != 2 {
		t.Fatalf("%d fsyncs for 2 appends", n)
	}
}

// TestInputsAreWrittenBehind: a session begun with Begin has no file until
// its first save; an input is saved in the background (here its fsync is
// held, and AppendInput returns all the same), Settle waits for it, and a
// produced message is on disk, after the inputs, when Append returns.
func TestInputsAreWrittenBehind(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	w, err := st.Begin(Header{Dir: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Begin wrote the file: %v", err)
	}
	s := New(System("sys"))
	w.Attach(s)
	w.SyncBehind(s)
	s.Settle()
	if l, err := Load(w.Path()); err != nil || len(l.Messages) != 1 {
		t.Fatalf("the first save: %v %+v", err, l.Messages)
	}
	held, entered := make(chan struct{}), make(chan struct{})
	w.sync = func(f *os.File) error {
		close(entered)
		<-held
		return f.Sync()
	}
	s.AppendInput(User("q")) // would never return if it waited for the fsync
	<-entered
	close(held)
	s.Settle()
	if l, _ := Load(w.Path()); len(l.Messages) != 2 || l.Messages[1].Content != "q" {
		t.Fatalf("after Settle: %+v", l.Messages)
	}
	w.sync = nil
	s.AppendInput(User("q2"))
	s.Append(Assistant("a"))
	l, _ := Load(w.Path())
	if len(l.Messages) != 4 || l.Messages[2].Content != "q2" || l.Messages[3].Content != "a" {
		t.Fatalf("an answer must be written with the inputs before it: %+v", l.Messages)
	}
	if err := w.Close(); err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
}

// TestMutationsReachTheFile: SetSystem, UpdateToolResult and Heal change
// history other than by appending; the next Sync writes them.
func TestMutationsReachTheFile(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	w, _ := st.Create(Header{Dir: "/x"})
	call := ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	s := New(System("old system"))
	w.Attach(s)
	_ = w.Sync(s)
	s.AppendInput(User("q"))
	s.Append(Assistant("", call), ToolResult(call, "first"), Assistant("", ToolCall{ID: "c2", Name: "grep", Arguments: `{}`}))
	onDisk := func(what string, ok func([]Message) bool) {
		t.Helper()
		if err := w.Sync(s); err != nil {
			t.Fatal(err)
		}
		l, err := Load(w.Path())
		if err != nil || !ok(l.Messages) {
			t.Fatalf("%s did not reach the file: %v %+v", what, err, l.Messages)
		}
	}
	s.SetSystem("new system")
	onDisk("SetSystem", func(m []Message) bool { return m[0].Content == "new system" })
	_ = s.UpdateToolResult("c1", func(m *Message) { m.Content = "rewritten" })
	onDisk("UpdateToolResult", func(m []Message) bool { return m[3].Content == "rewritten" })
	s.Heal() // fills c2
	onDisk("Heal", func(m []Message) bool { return len(m) == 6 && m[5].ErrorType == ErrorTypeInterrupted })
}

// stored is a store in a temporary folder, a session file created in it
// with h, and an empty session attached to the file.
func stored(t *testing.T, h Header) (Store, *Writer, *Session) {
	t.Helper()
	st := Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	w, err := st.Create(h)
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	w.Attach(s)
	return st, w, s
}

// TestRewoundMessagesStayInTheFile: what a rewind takes out of the
// conversation is not sent, but the file keeps it, marked, in order, and
// a later load still has it.
func TestRewoundMessagesStayInTheFile(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	w, err := st.Create(Header{Dir: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	w.Attach(s)
	s.AppendInput(User("q1"))
	s.Append(Assistant("a1"))
	s.AppendInput(User("q2"))
	s.Append(Assistant("a2"))
	q2 := s.Messages()[2].ID
	if _, err := s.ArchiveFrom(q2); err != nil {
		t.Fatal(err)
	}
	_ = w.Sync(s)
	s.AppendInput(User("q3"))
	s.Append(Assistant("a3"))
	if got := len(s.Messages()); got != 4 {
		t.Fatalf("%d messages sent", got)
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range l.Messages {
		contents = append(contents, m.Content)
	}
	if strings.Join(contents, " ") != "q1 a1 q3 a3" || len(l.Rewound) != 2 || l.Rewound[0].Content != "q2" || !l.Rewound[1].Rewound {
		t.Fatalf("loaded %v, rewound %+v", contents, l.Rewound)
	}
}

// TestRewriteOfALongHistory: a rewrite reads a long history a chunk at a
// time; the file still gets every message in order, whatever edits and
// appends happen while it is written.
func TestRewriteOfALongHistory(t *testing.T) {
	_, w, s := stored(t, Header{Dir: "/x"})
	s.Append(System("sys"))
	for i := range 3*rewriteChunk + 7 {
		s.Append(User(fmt.Sprint("q", i)), Assistant(fmt.Sprint("a", i)))
	}
	if err := w.Sync(s); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if err := s.InsertSummary(msgs[len(msgs)-2].ID, Summary("the earlier part", Compaction{})); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			_ = s.Update(msgs[1+2*i].ID, func(m *Message) { m.Content += " (edited)" })
			s.Append(User(fmt.Sprint("later q", i)), Assistant(fmt.Sprint("later a", i)))
		}
	}()
	for range 20 {
		if err := w.Sync(s); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if err := w.Sync(s); err != nil {
		t.Fatal(err)
	}
	l, err := Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := s.Messages()
	if len(l.Messages) != len(want) {
		t.Fatalf("the file has %d messages, the session %d", len(l.Messages), len(want))
	}
	for i, m := range want {
		if got := l.Messages[i]; got.ID != m.ID || got.Content != m.Content || got.Role != m.Role {
			t.Fatalf("message %d: the file has %s %q, the session %s %q", i, got.Role, got.Content, m.Role, m.Content)
		}
	}
}
