package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// machine is one person's home and working directory.
type machine struct {
	env    Env
	stderr *bytes.Buffer
	vars   map[string]string
}

func newMachine(t *testing.T) *machine {
	home, wd := t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME": filepath.Join(home, ".local", "share"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		"PATH": os.Getenv("PATH")}
	m := &machine{stderr: &bytes.Buffer{}, vars: vars}
	m.env = Env{Workdir: wd, Getenv: func(k string) string { return vars[k] }, Stderr: m.stderr,
		Environ: func() []string {
			var e []string
			for k, v := range vars {
				e = append(e, k+"="+v)
			}
			return e
		}}
	return m
}

// spec is a run against srv with the sandbox off (the box has suites of
// its own) and writes approved.
func (m *machine) spec(srv *oaitest.Server) Spec {
	cfg := config.Config{BaseURL: srv.BaseURL(), Model: "scripted-model", Yes: true, Sources: map[string]string{}}
	cfg.Sandbox.Mode = "off"
	return Spec{Config: cfg, Env: m.env, IfBusy: "exit", AgentsDir: filepath.Join(m.vars["XDG_CONFIG_HOME"], "chat", "agents"),
		Listeners: listener.NewList(), Cancellable: control.NewCancellable(), Interloper: control.NewInterloper()}
}

func write(path, content string) oaitest.Reply {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return oaitest.Answer{Calls: []oaitest.Call{{ID: "call_" + path, Name: "write_file", Args: string(args)}}}
}

// ask puts each question to the run's agent in turn.
func ask(t *testing.T, r *Run, questions ...string) {
	t.Helper()
	for _, q := range questions {
		if _, err := r.agent.Run(context.Background(), q); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
}

// stub gives a test tool its name and an empty schema.
type stub struct {
	tool.Unreviewed
	name string
}

func (s stub) Name() string              { return s.name }
func (stub) Description() string         { return "a test tool" }
func (stub) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (stub) Timeout() time.Duration      { return 0 }

func open(t *testing.T, spec Spec) *Run {
	t.Helper()
	r, err := Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	r.Start(context.Background(), ProbeNever)
	return r
}

// TestRunCheckpointsRewindsAndResumes: a run saves its session, takes
// checkpoints around the calls that change files, rewinds files and
// conversation as one, and a later run continues what was saved.
func TestRunCheckpointsRewindsAndResumes(t *testing.T) {
	srv := oaitest.New(t, write("a.txt", "one\n"), oaitest.Answer{Text: "wrote a"},
		write("b.txt", "two\n"), oaitest.Answer{Text: "wrote b"})
	m := newMachine(t)
	r := open(t, m.spec(srv))
	ask(t, r, "write a", "write b")
	rw := r.Rewinder()
	turns, err := rw.Turns()
	if err != nil || !strings.Contains(turns, "+ a.txt") || !strings.Contains(turns, "+ b.txt") {
		t.Fatalf("turns: %v\n%s", err, turns)
	}
	report, question, err := rw.Rewind(2, true, true, false)
	if err != nil || question != "write b" || !strings.Contains(report, "restored - b.txt") {
		t.Fatalf("rewind: %v %q\n%s", err, question, report)
	}
	if _, err := os.Stat(filepath.Join(m.env.Workdir, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt after the rewind: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(m.env.Workdir, "a.txt")); string(b) != "one\n" {
		t.Fatalf("a.txt: %q", b)
	}
	id := r.SessionID()
	r.Close()

	spec := m.spec(srv)
	spec.Continue = true
	again := open(t, spec)
	defer again.Close()
	if again.SessionID() != id || !again.Resumed() {
		t.Fatalf("continued %q (resumed %v), want %q", again.SessionID(), again.Resumed(), id)
	}
	for _, msg := range again.agent.Session().Messages() {
		if strings.Contains(msg.Content, "write b") {
			t.Fatalf("the rewound question is sent again: %+v", msg)
		}
	}
}

// writer is a tool that writes a file and says nothing of what it
// changes: it is checkpointed all the same.
type writer struct {
	stub
	path string
}

func (w writer) Run(context.Context, json.RawMessage) (string, error) {
	return "ok", os.WriteFile(w.path, []byte("scribbled\n"), 0o644)
}

// TestAToolThatDoesNotSayIsCheckpointed: whether a call may change files
// is the tool's to say; one that does not say is taken to.
func TestAToolThatDoesNotSayIsCheckpointed(t *testing.T) {
	srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "scribble", Args: "{}"}}}, oaitest.Answer{Text: "done"})
	m := newMachine(t)
	r := open(t, m.spec(srv))
	defer r.Close()
	r.agent.Tools().Add(writer{stub{name: "scribble"}, filepath.Join(m.env.Workdir, "s.txt")})
	if _, err := r.agent.Run(context.Background(), "scribble"); err != nil {
		t.Fatal(err)
	}
	turns, err := r.Rewinder().Turns()
	if err != nil || !strings.Contains(turns, "+ s.txt") {
		t.Fatalf("turns: %v\n%s", err, turns)
	}
	if tool.ChangesFiles(writer{}) != true {
		t.Fatal("a tool that does not say is taken to change files")
	}
	set := tool.NewSet(tool.Builtins(tool.Workspace{Root: m.env.Workdir})...)
	for name, want := range map[string]bool{"read_file": false, "grep": false, "write_file": true, "edit_file": true, "run_shell": true} {
		if tl, ok := set.Lookup(name); !ok || tool.ChangesFiles(tl) != want {
			t.Errorf("%s changes files: %v, want %v", name, ok && tool.ChangesFiles(tl), want)
		}
	}
}

// TestLeftovers: what a turn never took comes back in the order it was
// sent, queued and injected interleaved, then what another hand steered.
func TestLeftovers(t *testing.T) {
	in := control.NewInterloper()
	taken := in.Push("taken by the turn")
	late := in.Push("injected too late")
	in.Retract(taken)
	other := in.Push("steered by the editor")
	_ = other
	sent := []Sent{{Text: "taken by the turn", Inject: true, ID: taken}, {Text: "after the turn"},
		{Text: "injected too late", Inject: true, ID: late}, {Text: "and then this"}}
	got := Leftovers(in, sent)
	want := []string{"after the turn", "injected too late", "and then this", "steered by the editor"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("leftovers %q, want %q", got, want)
	}
	if rest := in.Drain(); len(rest) != 0 {
		t.Fatalf("left in the interloper: %v", rest)
	}
}

// TestEditsAreSaved: an edit of the history (/undo) is saved by the run,
// and a later run continues from the edited conversation.
func TestEditsAreSaved(t *testing.T) {
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer"}, oaitest.Answer{Text: "second answer"})
	m := newMachine(t)
	r := open(t, m.spec(srv))
	ask(t, r, "first", "second")
	q, err := r.Edits().DropLastExchange()
	if err != nil || q.Content != "second" {
		t.Fatalf("undo: %v %q", err, q.Content)
	}
	r.Close()
	spec := m.spec(srv)
	spec.Continue = true
	again := open(t, spec)
	defer again.Close()
	var texts []string
	for _, msg := range again.agent.Session().Messages() {
		texts = append(texts, msg.Content)
	}
	if got := strings.Join(texts[1:], "|"); got != "first|first answer" {
		t.Fatalf("continued with %q", got)
	}
}
