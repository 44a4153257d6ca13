package tui

import (
	"errors"
	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/app"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

func TestRetryAndContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.exchanges("first question", "first answer", "second question", "a bad answer")
	f.submit("/retry")
	if !f.m.busy || f.m.lastUser != "second question" {
		t.Fatalf("retry did not resend: busy %v last %q", f.m.busy, f.m.lastUser)
	}
	// History is cut before the question; the turn will append it again.
	if msgs := s.Messages(); len(msgs) != 2 || msgs[1].Content != "first answer" {
		t.Fatalf("history after /retry: %d messages", len(msgs))
	}

	g := newFixture(t)
	g.typeText("/continue")
	g.send(press("enter"))
	if g.m.busy || !strings.Contains(g.m.notice, "follows a synthesized answer") {
		t.Fatal("/continue without a synthesized answer")
	}
	gs := g.m.app.Session()
	gs.AppendInput(session.User("loop"))
	synth := session.Assistant("synthesized")
	synth.Synthesized = true
	gs.Append(synth)
	g.event(listener.Assistant{Origin: listener.Origin{Agent: "synthesizer", Turn: 1}, Text: "synthesized", Synthesized: true})
	g.typeText("/continue")
	g.send(press("enter"))
	if !g.m.busy || len(gs.Messages()) != 1 {
		t.Fatalf("/continue: busy %v, %d messages", g.m.busy, len(gs.Messages()))
	}
}

func TestHistoryPersists(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "history.jsonl")
	f := newFixture(t)
	f.m.input = newInput(path)
	f.m.input.focus()
	f.busy("first") // while busy, enter only queues: no turn runs here
	f.typeText("line one")
	f.send(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}) // a newline inside the input
	f.typeText("line two")
	runAll(f.send(press("enter"))) // the history append is a command

	g := newFixture(t)
	g.m.input = newInput(path)
	g.m.input.focus()
	g.send(press("up"))
	if got := g.m.input.value(); got != "line one\nline two" {
		t.Fatalf("history recalled %q", got)
	}
	g.send(press("down"))
	if !g.m.input.empty() {
		t.Fatal("down did not return to the draft")
	}
}

func TestFullscreenScrolls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.opts.Fullscreen = true
	for i := range 60 {
		f.m.print("block " + strings.Repeat("x", i%5) + string(rune('A'+i%26)))
	}
	v := f.m.View()
	if !v.AltScreen || lineCount(v.Content) != 24 {
		t.Fatalf("alt %v, %d lines", v.AltScreen, lineCount(v.Content))
	}
	before := ansi.Strip(v.Content)
	f.send(tea.KeyPressMsg{Code: tea.KeyPgUp})
	after := ansi.Strip(f.m.View().Content)
	if before == after || !strings.Contains(after, "scrolled") {
		t.Fatal("pgup did not scroll")
	}
	// PgUp reaches the first line: the scroll range is the transcript's
	// region, not the window (issue 11: the first message was out of reach).
	f.m.print("the last block")
	for range 20 {
		f.send(tea.KeyPressMsg{Code: tea.KeyPgUp})
	}
	if top := ansi.Strip(f.m.View().Content); !strings.HasPrefix(top, "block A\n") {
		t.Fatalf("the first block is out of reach:\n%s", top)
	}
}

// runAll runs a command and everything it batches, skipping timers.
func runAll(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if b, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range b {
			runAll(c)
		}
	}
}

func TestAttachCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(path, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.typeText("/attach " + path)
	cmd := f.send(press("enter"))
	runAll(cmd) // reads the file; its message is delivered below
	f.send(attachedMsg{part: session.FilePart{MediaType: "text/plain", Filename: "notes.txt", Data: []byte("hello")}})
	if len(f.m.attachments) != 1 || !strings.Contains(ansi.Strip(f.m.View().Content), "📎 notes.txt (5 B)") {
		t.Fatal("attachment not shown")
	}
	f.submit("summarize it")
	if len(f.m.attachments) != 0 || !strings.Contains(f.printed(), "📎 notes.txt") {
		t.Fatal("attachment not sent with the message")
	}
	f.submit("/attach " + filepath.Join(dir, "missing"))
	f.send(attachedMsg{err: errors.New("attach missing: no such file")})
	if !strings.Contains(f.printed(), "✗ attach missing") {
		t.Fatal("error not shown")
	}
}

func TestEscEscEditsLastMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.exchanges("first", "answer one", "second with a typo", "answer two")
	f.send(press("esc"))
	f.clock = f.clock.Add(300 * time.Millisecond)
	f.send(press("esc"))
	if f.m.input.value() != "second with a typo" || f.m.editing == "" {
		t.Fatalf("input %q", f.m.input.value())
	}
	f.m.input.set("second, fixed")
	f.send(press("enter"))
	if !f.m.busy || f.m.lastUser != "second, fixed" || len(s.Messages()) != 2 {
		t.Fatalf("busy %v last %q, %d messages", f.m.busy, f.m.lastUser, len(s.Messages()))
	}
}

// fakeHost is a SessionHost over memory.
type fakeHost struct {
	infos   []session.Info
	stored  map[string]*session.Session
	changed int
}

func (h *fakeHost) Changed(*session.Session)      { h.changed++ }
func (h *fakeHost) Started(*session.Session)      {}
func (h *fakeHost) List() ([]session.Info, error) { return h.infos, nil }
func (h *fakeHost) Open(id string) (*session.Session, session.Info, error) {
	for _, i := range h.infos {
		if s, ok := h.stored[i.ID]; ok && strings.HasPrefix(i.ID, id) {
			return s, i, nil
		}
	}
	return nil, session.Info{}, errors.New("no such session " + id)
}

func TestSessionPicker(t *testing.T) {
	t.Parallel()
	old := session.New(session.User("the old question"), session.Assistant("the old answer"))
	host := &fakeHost{stored: map[string]*session.Session{"0199-bbbb-cccc-dddd": old}, infos: []session.Info{
		{ID: "0199-aaaa-cccc-dddd", Title: "newest", Messages: 4, Dir: "/srv/projects/webshop"},
		{ID: "0199-bbbb-cccc-dddd", Title: "the old one", Messages: 2, Dir: "/srv/projects/a-very-long-folder-name/api"},
	}}
	f := newFixture(t)
	host.infos[0].Updated = f.clock.Add(-3 * time.Hour)
	host.infos[1].Updated = f.clock.Add(-50 * time.Hour)
	f.app.sessions = host
	f.m.edits = app.NewEdits(f.app.Agent, host.Changed)
	f.typeText("/sessions")
	cmd := f.send(press("enter"))
	if cmd == nil {
		t.Fatal("no command to list sessions")
	}
	f.send(sessionsMsg{items: host.infos})
	view := ansi.Strip(f.m.View().Content)
	if !strings.Contains(view, "▸ 0199-aaaa-ccc  3h ago") || !strings.Contains(view, "the old one") ||
		!strings.Contains(view, "/srv/projects/webshop") || !strings.Contains(view, "…ry-long-folder-name/api") {
		t.Fatalf("picker:\n%s", view)
	}
	f.send(press("down"))
	f.send(press("enter"))
	s, _, err := host.Open("0199-bbbb-cccc-dddd")
	f.send(resumedMsg{s: s, err: err})
	if f.m.picker != nil || f.m.app.Session() != old || !strings.Contains(f.printed(), "the old answer") {
		t.Fatalf("resume: picker %v printed %q", f.m.picker, f.printed())
	}
	f.typeText("/undo")
	runAll(f.send(press("enter")))
	if old.Len() != 0 || host.changed == 0 || f.m.input.value() != "the old question" {
		t.Fatalf("/undo: %d messages, %d saves, input %q", old.Len(), host.changed, f.m.input.value())
	}
}

// FuzzCommand types arbitrary lines into the input and sends them: slash
// commands and text alike never panic, and the model stays usable.
func FuzzCommand(f *testing.F) {
	for _, c := range commands {
		f.Add(c.name + " " + c.args)
	}
	f.Add("/steps -3")
	f.Add("/model")
	f.Add("//")
	f.Add("/resume ../../etc")
	f.Fuzz(func(t *testing.T, line string) {
		fx := newFixture(t)
		fx.m.input.set(line)
		fx.send(press("enter"))
		fx.send(press("esc"))
		_ = fx.m.View()
	})
}

// TestContextAddsUp: /context's headline is the sum of the parts it
// lists; the server's own count is said beside it when it differs.
func TestContextAddsUp(t *testing.T) {
	t.Parallel()
	p := agent.ContextParts{System: 120, Tools: 800, Summary: 300, History: 1780, Window: 4096, Summarized: 12}
	report := p.Report(3600, nil)
	if !strings.HasPrefix(report, "context: ~3000 of 4096 tokens (73%)") || !strings.Contains(report, "server's count") || !strings.Contains(report, "~3600") {
		t.Fatalf("%s", report)
	}
	if report := p.Report(3010, nil); strings.Contains(report, "server's count") {
		t.Fatalf("a close count is noise:\n%s", report)
	}
}
