package tui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// drive runs cmd as the program would, each command of a batch at once,
// and hands back to the model the messages of this package its commands
// return, until none is outstanding. A timer of the libraries' (the
// spinner, the cursor's blink) and the job follower's re-arming tick are
// let run out and not handed back, so driving ends; nothing is judged by
// how long it took.
func (f *fixture) drive(cmd tea.Cmd) {
	ours := reflect.TypeOf(typedMsg{}).PkgPath()
	results := make(chan tea.Msg)
	outstanding := 0
	start := func(c tea.Cmd) {
		if c != nil {
			outstanding++
			go func() { results <- c() }()
		}
	}
	start(cmd)
	for ; outstanding > 0; outstanding-- {
		msg := <-results
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				start(c)
			}
		case followTick:
		default:
			if msg != nil && reflect.TypeOf(msg).PkgPath() == ours {
				start(f.send(msg))
			}
		}
	}
}

// typing types s key by key and returns what the keys started, to drive
// together.
func (f *fixture) typing(s string) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range s {
		cmds = append(cmds, f.send(tea.KeyPressMsg{Code: r, Text: string(r)}))
	}
	return tea.Batch(cmds...)
}

func (f *fixture) view() string { return ansi.Strip(f.m.View().Content) }

// TestTheFormComponent: a server's question is a form the person moves to
// with Tab; each field is typed and checked, and a, d or c answer it.
func TestTheFormComponent(t *testing.T) {
	t.Parallel()
	ask := func(f *fixture) chan app.ElicitAnswer {
		reply := make(chan app.ElicitAnswer, 1)
		f.send(elicitMsg{e: app.Elicitation{Server: "weather", Message: "Which city?\nand how many days?", Fields: []app.ElicitField{
			{Name: "city", Type: "string", Default: "Lyon", Description: "where"},
			{Name: "days", Type: "integer", Required: true},
			{Name: "alerts", Type: "boolean"},
		}}, reply: reply})
		return reply
	}
	f := newFixture(t)
	f.typeText("my own message")
	reply := ask(f)
	if v := f.view(); !strings.Contains(v, "weather asks: Which city?") || !strings.Contains(v, "tab answers the form") {
		t.Fatalf("the form:\n%s", v)
	}
	f.send(press("tab"))
	if f.m.input.value() != "Lyon" || !strings.Contains(f.view(), "type city below") {
		t.Fatalf("the first field: %q\n%s", f.m.input.value(), f.view())
	}
	f.send(press("esc")) // back to the message; the form waits
	if f.m.input.value() != "my own message" {
		t.Fatalf("the message came back as %q", f.m.input.value())
	}
	f.send(press("tab"))
	f.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	f.m.input.set("Paris")
	f.send(press("enter"))
	f.m.input.set("many")
	f.send(press("enter"))
	if !strings.Contains(f.m.notice, "✗") {
		t.Fatalf("a number that is none was taken: notice %q", f.m.notice)
	}
	f.m.input.set("3")
	f.send(press("enter"))
	f.send(press("up"))
	f.send(press("down"))
	f.send(press("enter"))
	if !strings.Contains(f.view(), "[a]ccept  [d]ecline  [c]ancel") {
		t.Fatalf("the last screen:\n%s", f.view())
	}
	f.send(press("a"))
	ans := <-reply
	if ans.Action != "accept" || ans.Values["city"] != "Paris" || ans.Values["days"] != "3" {
		t.Fatalf("answer %+v", ans)
	}
	if !strings.Contains(f.printed(), "✓ answered weather: city=Paris, days=3") || f.m.input.value() != "my own message" {
		t.Fatalf("printed %q, input %q", f.printed(), f.m.input.value())
	}
	for key, action := range map[string]string{"d": "decline", "c": "cancel"} {
		g := newFixture(t)
		reply := ask(g)
		g.send(press("tab"))
		for range 3 {
			g.send(press("down"))
		}
		g.send(press(key))
		if ans := <-reply; ans.Action != action {
			t.Fatalf("%s: %+v", key, ans)
		}
	}
	// A question withdrawn by its server goes from the screen.
	g := newFixture(t)
	reply = ask(g)
	g.send(elicitGoneMsg{reply: reply})
	if g.m.form != nil || !strings.Contains(g.printed(), "question was withdrawn") {
		t.Fatal("a withdrawn question stayed")
	}
	// A URL to visit is printed whole, never opened.
	h := newFixture(t)
	h.send(elicitMsg{e: app.Elicitation{Server: "bank", Message: "authorize", URL: "https://bank.example/a?x=1"}, reply: make(chan app.ElicitAnswer, 1)})
	if !strings.Contains(h.printed(), "bank asks you to visit: https://bank.example/a?x=1") || !strings.Contains(h.view(), "not opened") {
		t.Fatalf("printed %q\n%s", h.printed(), h.view())
	}
}

// TestTheMentionList: @ lists the working directory's files as typed;
// tab completes, esc closes; a mention is attached when sent.
func TestTheMentionList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"main.go", "docs/guide.md", "docs/api.md"} {
		_ = os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		_ = os.WriteFile(filepath.Join(dir, p), []byte("content of "+p), 0o600)
	}
	f := newFixture(t)
	f.app.workdir = dir
	f.app.files = func(int) ([]string, error) { return []string{"main.go", "docs/", "docs/guide.md", "docs/api.md"}, nil }
	f.drive(f.typing("look at @doc"))
	if v := f.view(); !strings.Contains(v, "docs/") || !strings.Contains(v, "tab or enter picks") {
		t.Fatalf("the list:\n%s", v)
	}
	f.send(press("down"))
	f.send(press("up"))
	f.drive(f.send(press("tab")))
	if got := f.m.input.value(); got != "look at @docs/" {
		t.Fatalf("completed to %q", got)
	}
	f.drive(f.typing("gu"))
	f.drive(f.send(press("tab")))
	if got := f.m.input.value(); got != "look at @docs/guide.md " {
		t.Fatalf("completed to %q", got)
	}
	// Sent, the mention becomes an attachment the turn carries.
	msg := resolveMentions("look at @docs/guide.md", dir, nil, false)()
	m, ok := msg.(mentionedMsg)
	if !ok || len(m.parts) != 1 || m.parts[0].Filename != "docs/guide.md" {
		t.Fatalf("mentioned %+v", msg)
	}
	g := newFixture(t)
	g.app.workdir = dir
	g.app.files = f.app.files
	g.drive(g.typing("@ma"))
	g.send(press("esc"))
	if strings.Contains(g.view(), "tab or enter picks") {
		t.Fatal("esc did not close the list")
	}
}

// TestBangCommands: a ! line runs as the person's own command; its
// output is shown and goes with the next message.
func TestBangCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.app.workdir = t.TempDir()
	f.typeText("!echo from-the-shell; exit 3")
	if !strings.Contains(f.view(), "! shell mode") {
		t.Fatalf("no shell mode:\n%s", f.view())
	}
	f.drive(f.send(press("enter"))) // runs until the command's end is in
	if p := f.printed(); !strings.Contains(p, "from-the-shell") || !strings.Contains(p, "exit status 3") {
		t.Fatalf("printed %q", p)
	}
	if !strings.Contains(f.m.notice, "go with your next message") {
		t.Fatalf("notice %q", f.m.notice)
	}
}

// TestJobsFollowerAndStop: /ps lists the background jobs, /ps N follows
// one, /stop N ends it.
func TestJobsFollowerAndStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	j := f.app.jobs.Start("sleep forever", "c1", func(ctx context.Context, out io.Writer) (int, error) {
		_, _ = io.WriteString(out, "serving on :8080\n")
		<-ctx.Done()
		return -1, ctx.Err()
	})
	f.submit("/ps")
	if !strings.Contains(f.printed(), "sleep forever") {
		t.Fatalf("/ps: %q", f.printed())
	}
	f.drive(f.submit("/ps 1"))
	if v := f.view(); !strings.Contains(v, "job 1") || !strings.Contains(v, "serving on :8080") || !strings.Contains(v, "jobs 1 (/ps)") {
		t.Fatalf("following:\n%s", v)
	}
	f.submit("/stop 1")
	j.Wait(10 * time.Second)
	if j.Running() || !strings.Contains(f.printed(), "job 1 stopped") {
		t.Fatalf("stopped: %v %q", j.Running(), f.printed())
	}
	f.submit("/stop x")
	if !strings.Contains(f.m.notice, "/stop N") {
		t.Fatalf("notice %q", f.m.notice)
	}
}

// TestTheUsageCounter: what the status bar counts, and /cost.
func TestTheUsageCounter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.price = func(string, session.Usage) (float64, bool) { return 0.01, true }
	f.typeText("how much would this cost")
	if v := f.view(); !strings.Contains(v, "next ~") {
		t.Fatalf("no estimate:\n%s", v)
	}
	f.busy("a question")
	f.event(listener.Usage{Origin: listener.Origin{Turn: 1}, Prompt: 1200, Completion: 30, Total: 1230})
	f.send(turnDoneMsg{turn: 1})
	f.submit("/cost")
	if p := f.printed(); !strings.Contains(p, "session  input") || !strings.Contains(p, "next request ~") {
		t.Fatalf("/cost: %q", p)
	}
}

// TestResumeAcrossFolders: the picker lists this folder's sessions first;
// resuming another folder's says where it was made and where tools act.
func TestResumeAcrossFolders(t *testing.T) {
	t.Parallel()
	other := session.New(session.User("made elsewhere"), session.Assistant("an answer there"))
	host := &fakeHost{stored: map[string]*session.Session{"0199-bbbb-cccc-dddd": other}, infos: []session.Info{
		{ID: "0199-bbbb-cccc-dddd", Title: "made elsewhere", Messages: 2, Dir: "/srv/elsewhere"},
		{ID: "0199-aaaa-cccc-dddd", Title: "made here", Messages: 2, Dir: "/srv/here"},
	}}
	f := newFixture(t)
	f.app.sessions, f.app.workdir = host, "/srv/here"
	f.send(sessionsMsg{items: append([]session.Info(nil), host.infos...)})
	if f.m.picker == nil || f.m.picker.items[0].Dir != "/srv/here" {
		t.Fatalf("picker %+v", f.m.picker)
	}
	f.send(press("esc"))
	f.drive(f.m.resume("0199-bbbb-cccc-dddd"))
	if p := f.printed(); !strings.Contains(p, "this session was made in /srv/elsewhere") || !strings.Contains(p, "act on /srv/here") ||
		!strings.Contains(p, "chat --resume 0199-bbb") {
		t.Fatalf("printed %q", p)
	}
}

// TestAnInterruptedCallIsNotDrawnAgain: a call a resumed session stopped
// in the middle of is said at the resume; the placeholder answer it gets
// when the next turn starts is not drawn under the person's new message.
func TestAnInterruptedCallIsNotDrawnAgain(t *testing.T) {
	t.Parallel()
	call := session.ToolCall{ID: "c1", Name: "run_shell", Arguments: `{"command":"sleep 20"}`, Started: true}
	f := newFixture(t)
	f.m.showResumed([]session.Message{session.User("run it"), session.Assistant("", call)})
	if !strings.Contains(f.printed(), "chat stopped while run_shell") {
		t.Fatalf("not said at the resume: %q", f.printed())
	}
	f.busy("what happened?")
	before := f.printed()
	f.event(listener.ToolCall{Origin: listener.Origin{Turn: 1}, ID: "c1", Name: "run_shell", Arguments: call.Arguments})
	f.event(listener.ToolResult{Origin: listener.Origin{Turn: 1}, ID: "c1", Name: "run_shell", Content: "Error: interrupted"})
	if after := strings.TrimPrefix(f.printed(), before); strings.Contains(after, "run_shell") || strings.Contains(after, "interrupted") {
		t.Fatalf("drawn again under the new message: %q", after)
	}
	f.event(listener.ToolCall{Origin: listener.Origin{Turn: 1}, ID: "c2", Name: "run_shell", Arguments: `{"command":"ls"}`})
	if !strings.Contains(f.printed(), `{"command":"ls"}`) {
		t.Fatal("a new call of the turn was not drawn")
	}
}

// TestApprovalTitlesBreakBetweenWords: at 80 columns (and narrower) a
// long path in the question breaks after a "/" or between words, never
// inside a name.
func TestApprovalTitlesBreakBetweenWords(t *testing.T) {
	t.Parallel()
	a := &asking{approvalMsg: approvalMsg{req: tool.Request{Tool: "write_file", Review: tool.Review{
		Summary: "write internal/configuration/loaders/environment_variables_override.go (12 lines)"}}}}
	st := newStyles(true, true)
	for _, width := range []int{80, 60, 48} {
		lines := a.head(&st, width)
		text := ansi.Strip(strings.Join(lines, "\n"))
		for _, name := range []string{"environment_variables_override.go", "configuration/", "loaders/"} {
			if !strings.Contains(text, name) {
				t.Fatalf("width %d: %q cut:\n%s", width, name, text)
			}
		}
	}
}

// TestMentionNotices: a server's resource is not called "outside the
// working directory"; a long notice wraps instead of being cut.
func TestMentionNotices(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.send(mentionedMsg{text: "read @docs:file://guide.md and @/etc/hosts", asking: []string{"@docs:file://guide.md"}, outside: []string{"/etc/hosts"}})
	v := strings.Join(strings.Fields(f.view()), " ")
	if !strings.Contains(v, "/etc/hosts: outside the working directory") || !strings.Contains(v, "@docs:file://guide.md: its server's resources are read only when you say so") ||
		!strings.Contains(v, "enter attaches anyway, or edit the message") {
		t.Fatalf("the notice:\n%s", f.view())
	}
}

// TestListingsKeepTheirColumn: a listing's long row wraps under its own
// text, not under the left margin (/rewind's rows at 80 columns).
func TestListingsKeepTheirColumn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	out := ansi.Strip(f.m.blocks().notice(f.m.st.notice, "turns of this session:\n  1  please refactor the configuration loader so that environment variables win over the file\n       (no file changes)"))
	for _, l := range strings.Split(out, "\n")[1:] {
		if !strings.HasPrefix(l, "  ") {
			t.Fatalf("a row wrapped under the margin:\n%s", out)
		}
	}
}

// TestCompletionColumnsLineUp: a server's long prompt names do not push
// their descriptions out of the column.
func TestCompletionColumnsLineUp(t *testing.T) {
	t.Parallel()
	st := newStyles(true, true)
	out := ansi.Strip(completionView(&st, "/every", []command{
		{name: "/everything:args-prompt", args: "city= state=", help: "a prompt with arguments"},
		{name: "/everything:simple-prompt", help: "a prompt without"},
	}))
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || strings.Index(lines[0], "a prompt with") != strings.Index(lines[1], "a prompt without") {
		t.Fatalf("columns:\n%s", out)
	}
}
