package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// pane is the real binary running in a tmux pane, driven as a person
// would: keys, pasted text, and what the screen shows.
type pane struct {
	t      *testing.T
	socket string
	dir    string // the working directory of chat
	home   string // chat's HOME (sessions are under .local/share/chat)
	exit   string // file that receives chat's exit status
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it: .ci/run)")
	}
}

func startTerm(t *testing.T, srv *oaitest.Server, args ...string) *pane {
	return startTermEnv(t, srv, "", args...)
}

// startTermEnv starts chat with extra environment ("K=V K2=V2").
func startTermEnv(t *testing.T, srv *oaitest.Server, extraEnv string, args ...string) *pane {
	return startTermConfig(t, srv, extraEnv, "", args...)
}

// startTermConfig starts chat with a config file holding configTOML.
func startTermConfig(t *testing.T, srv *oaitest.Server, extraEnv, configTOML string, args ...string) *pane {
	return startTermOpts(t, srv, termOpts{env: extraEnv, config: configTOML}, args...)
}

// termOpts: extra environment ("K=V K2=V2"), a config file, the size.
type termOpts struct {
	env, config   string
	width, height int
	noWait        bool             // do not wait for the input prompt (chat may refuse to start)
	setup         func(dir string) // prepares the working directory before chat starts
	home          string           // HOME (default: a new temporary folder)
	atTop         bool             // start chat on the first row of an empty screen (as after clear)
}

func startTermOpts(t *testing.T, srv *oaitest.Server, o termOpts, args ...string) *pane {
	needTmux(t)
	extraEnv, configTOML := o.env, o.config
	if o.width == 0 {
		o.width, o.height = 100, 40
	}
	tm := &pane{t: t, socket: fmt.Sprintf("chat-e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-")), dir: t.TempDir()}
	tm.exit = filepath.Join(tm.dir, ".exit-status")
	if o.setup != nil {
		o.setup(tm.dir)
	}
	home := o.home
	if home == "" {
		home = t.TempDir()
	}
	tm.home = home
	if configTOML != "" {
		_ = os.MkdirAll(filepath.Join(home, "c", "chat"), 0o700)
		if err := os.WriteFile(filepath.Join(home, "c", "chat", "config.toml"), []byte(configTOML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := fmt.Sprintf("env -i HOME=%s PATH=%s TERM=xterm-256color XDG_CONFIG_HOME=%s/c XDG_STATE_HOME=%s/s OPENAI_BASE_URL=%s CHAT_MODEL=scripted-model %s %s",
		home, os.Getenv("PATH"), home, home, srv.BaseURL(), strings.Join(coverEnv(), " "), extraEnv)
	marker := "printf 'MARKER-BEFORE-CHAT\\n' && "
	if o.atTop {
		marker = ""
	}
	script := fmt.Sprintf("cd %s && %s%s %s %s; echo $? > %s; sleep 600", tm.dir, marker, env, chatBin, strings.Join(args, " "), tm.exit)
	tm.tmux("new-session", "-d", "-s", "main", "-x", fmt.Sprint(o.width), "-y", fmt.Sprint(o.height), script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	if !o.noWait {
		tm.waitFor("Ask anything", 10*time.Second)
	}
	return tm
}

func (tm *pane) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

func (tm *pane) screen() string { return tm.tmux("capture-pane", "-p", "-t", "main", "-S", "-200") }

func (tm *pane) keys(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

func (tm *pane) typeText(s string) { tm.tmux("send-keys", "-t", "main", "-l", s) }

// ask types a line and presses Enter.
func (tm *pane) ask(s string) {
	tm.typeText(s)
	tm.keys("Enter")
}

// answer presses a key at an approval prompt as a person does on
// purpose: Tab moves to the question (typing never answers it), then the
// key.
func (tm *pane) answer(key string) {
	tm.t.Helper()
	// The question must be there first: a Tab before it has nothing to
	// move to, and the key would go to the input (a test that waited for
	// the tool's name saw the call line, not the question).
	deadline := time.Now().Add(10 * time.Second * loadAllowance)
	for scr := tm.screen(); !strings.Contains(scr, "[y]es  [n]o") && !strings.Contains(scr, "tab answers it"); scr = tm.screen() {
		if time.Now().After(deadline) {
			tm.t.Fatalf("no question to answer; the screen:\n%s", scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
	tm.keys("Tab")
	tm.typeText(key)
}

// paste delivers text as a terminal paste (bracketed, as a person's paste).
func (tm *pane) paste(text string) {
	f := filepath.Join(tm.t.TempDir(), "paste")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		tm.t.Fatal(err)
	}
	tm.tmux("load-buffer", "-b", "p", f)
	tm.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "main")
}

// loadAllowance multiplies every wait for the screen: a wait ends as soon
// as the text appears, so only a failure takes longer, and a machine at a
// load of 20 is slow, not wrong.
const loadAllowance = 4

func (tm *pane) waitFor(s string, timeout time.Duration) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout * loadAllowance)
	for {
		scr := tm.screen()
		if strings.Contains(scr, s) {
			return scr
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%q never appeared; the screen:\n%s", s, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitIdle waits until no turn runs: the status line (the last one
// written) shows no spinner.
func (tm *pane) waitIdle(timeout time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout * loadAllowance)
	for {
		lines := strings.Split(strings.TrimRight(tm.tmux("capture-pane", "-p", "-t", "main"), "\n"), "\n")
		status := lines[len(lines)-1]
		if !strings.ContainsFunc(status, func(r rune) bool { return r >= 0x2800 && r <= 0x28FF }) {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("still busy; the screen:\n%s", tm.screen())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// wantHangup waits for srv to see a client close a stream (when says
// after what).
func wantHangup(t *testing.T, srv *oaitest.Server, when string) {
	t.Helper()
	select {
	case <-srv.Hangups():
	case <-time.After(10 * time.Second):
		t.Fatalf("the server never saw the stream close %s", when)
	}
}

func (tm *pane) exitStatus(timeout time.Duration) string {
	tm.t.Helper()
	// As every wait for the screen: a loaded machine is slow, not wrong.
	deadline := time.Now().Add(timeout * loadAllowance)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(tm.exit); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(30 * time.Millisecond)
	}
	tm.t.Fatalf("chat did not exit; the screen:\n%s", tm.screen())
	return ""
}

func TestTUIAnswersAndQuits(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "Here is **the answer**:\n\n- one\n- two\n"})
	tm := startTerm(t, srv)
	tm.ask("hello there")
	scr := tm.waitFor("• two", 10*time.Second)
	if !strings.Contains(scr, "› hello there") || !strings.Contains(scr, "the answer") || !strings.Contains(scr, "• one") {
		t.Fatalf("the screen:\n%s", scr)
	}
	// The answer shows before its turn ends: a Ctrl+C before that
	// cancels the turn instead.
	tm.waitIdle(10 * time.Second)
	tm.keys("C-c")
	tm.waitFor("press ctrl+c again to quit", 5*time.Second)
	tm.keys("C-c")
	if st := tm.exitStatus(5 * time.Second); st != "0" {
		t.Fatalf("exit status %s", st)
	}
}

func TestTUICancelThenNextTurn(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "The start of a stream that hangs", Piece: 16, Gate: gate, GateAfter: 1},
		oaitest.Answer{Text: "second turn works"})
	tm := startTerm(t, srv)
	tm.ask("first")
	tm.waitFor("The start of a ", 10*time.Second)
	tm.keys("C-c")
	wantHangup(t, srv, "after Ctrl+C")
	tm.waitFor("⏹ cancelled", 5*time.Second)
	tm.ask("second")
	tm.waitFor("second turn works", 10*time.Second)
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user assistant user" {
		t.Fatalf("second request %s", got)
	}
}

func TestTUITypeDuringSlowTool(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "call_pipe", Name: "run_shell", Args: `{"command":"read line < slow.fifo; echo \"$line\""}`}}},
		oaitest.Answer{Text: "got both"},
		oaitest.Answer{Text: "and the queued one"})
	tm := startTerm(t, srv, "--yes")
	fifo := filepath.Join(tm.dir, "slow.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tm.ask("read the pipe")
	tm.waitFor("run_shell", 10*time.Second) // the command blocks on the FIFO
	tm.ask("also check the tests")
	tm.typeText("afterwards, summarize")
	tm.keys("Tab")
	tm.waitFor("after turn afterwards, summarize", 5*time.Second)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.WriteString("pipe contents\n")
	w.Close()
	tm.waitFor("and the queued one", 10*time.Second)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[1].Shape(); got != "system user assistant(call_pipe) tool:call_pipe user" {
		t.Fatalf("request after the tool: %s", got)
	}
	if got := reqs[1].Messages[4].Text(); got != "also check the tests" {
		t.Fatalf("injected %q", got)
	}
	if got := reqs[2].Messages[len(reqs[2].Messages)-1].Text(); got != "afterwards, summarize" {
		t.Fatalf("queued turn %q", got)
	}
}

func TestTUIHugePaste(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "received"})
	tm := startTerm(t, srv)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %04d of the paste\n", i)
	}
	tm.paste(b.String())
	tm.waitFor("[pasted", 10*time.Second)
	tm.keys("Enter")
	tm.waitFor("received", 10*time.Second)
	got := srv.Requests()[0].Messages[1].Text()
	if got != strings.TrimRight(b.String(), "\n") && got != b.String() {
		t.Fatalf("the paste arrived as %d bytes, want %d", len(got), b.Len())
	}
}

func TestTUIEscapeSequencesAreInert(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "title\x1b]0;PWNED\x07 clear\x1b[2J\x1b[H done"})
	tm := startTerm(t, srv)
	title := tm.tmux("display-message", "-p", "-t", "main", "#{pane_title}")
	tm.ask("go")
	scr := tm.waitFor("done", 10*time.Second)
	if !strings.Contains(scr, "MARKER-BEFORE-CHAT") {
		t.Fatalf("the screen was cleared:\n%s", scr)
	}
	if after := tm.tmux("display-message", "-p", "-t", "main", "#{pane_title}"); after != title || strings.Contains(after, "PWNED") {
		t.Fatalf("title changed from %q to %q", title, after)
	}
}

// TestTUIEditorFileEndsWithANewline: what an appending editor adds to the
// draft starts a line of its own (the file ended without a newline, so it
// was glued onto the draft's last line).
func TestTUIEditorFileEndsWithANewline(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "got it"})
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf 'appended line\\n' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := startTermEnv(t, srv, "EDITOR="+editor)
	tm.typeText("draft")
	tm.keys("C-g")
	tm.waitFor("appended line", 5*time.Second)
	tm.keys("Enter")
	tm.waitFor("got it", 10*time.Second)
	if got := srv.Requests()[0].Messages[1].Text(); got != "draft\nappended line" {
		t.Fatalf("sent %q", got)
	}
}

func TestTUIEditorAndHistory(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer"}, oaitest.Answer{Text: "second answer"})
	editor := filepath.Join(t.TempDir(), "editor.sh")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\nprintf 'written in the editor' > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := startTermEnv(t, srv, "EDITOR="+editor)
	tm.ask("question one")
	tm.waitFor("first answer", 10*time.Second)
	tm.keys("Up")
	tm.waitForInput("› question one") // the transcript has it too
	tm.keys("C-g")
	tm.waitFor("› written in the editor", 5*time.Second)
	tm.keys("Enter")
	tm.waitFor("second answer", 10*time.Second)
	if got := srv.Requests()[1].Messages[3].Text(); got != "written in the editor" {
		t.Fatalf("sent %q", got)
	}
}

// TestTUIHelpNamesEveryKey: /help names the keys and prefixes the README
// does: Esc Esc, @ and ! (it left them out).
func TestTUIHelpNamesEveryKey(t *testing.T) {
	t.Parallel()
	tm := startTerm(t, oaitest.New(t))
	tm.ask("/help")
	screen := tm.waitFor("/quit", 5*time.Second)
	words := strings.Join(strings.Fields(screen), " ") // lines wrap at the pane's width
	for _, want := range []string{"esc esc", "@ mentions a file", "! at the start"} {
		if !strings.Contains(words, want) {
			t.Errorf("/help does not mention %q:\n%s", want, screen)
		}
	}
}

// TestTUICtrlXDeletesTheQueuedMessageBeingEdited: ↑ takes the queued
// message into the input to edit; Ctrl+X, as the hint says, deletes it
// (it did nothing), and it is never sent.
func TestTUICtrlXDeletesTheQueuedMessageBeingEdited(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "The first answer, held", Piece: 8, Gate: gate, GateAfter: 1},
		oaitest.Answer{Text: "second turn"})
	tm := startTerm(t, srv)
	tm.ask("first")
	tm.waitFor("The firs", 10*time.Second)
	tm.typeText("queued for later")
	tm.keys("Tab")
	tm.waitFor("after turn queued for later", 5*time.Second)
	tm.keys("Up")
	tm.waitFor("ctrl+x deletes it", 5*time.Second)
	tm.keys("C-x")
	tm.waitFor("deleted: queued for later", 5*time.Second)
	gate.Release()
	tm.waitFor("held", 10*time.Second)
	tm.waitIdle(10 * time.Second)
	tm.ask("next")
	tm.waitFor("second turn", 10*time.Second)
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Text(), "queued for later") {
				t.Fatalf("the deleted message was sent: %s", r.Shape())
			}
		}
	}
}

// TestTUIBurstArrivesWhole: 2,000 characters typed as keys (no bracketed
// paste), then a few more, then Enter: the message sent is exactly what
// was typed, in order (keys of a burst are gathered and inserted
// together).
func TestTUIBurstArrivesWhole(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "got the burst"})
	tm := startTerm(t, srv)
	var burst strings.Builder
	for i := 0; burst.Len() < 2000; i++ {
		fmt.Fprintf(&burst, "w%d ", i)
	}
	tm.typeText(burst.String())
	tm.typeText("END")
	tm.waitFor("END", 10*time.Second)
	tm.keys("Enter")
	tm.waitFor("got the burst", 10*time.Second)
	if got := srv.Requests()[0].Messages[1].Text(); got != strings.TrimSpace(burst.String()+"END") && got != burst.String()+"END" {
		t.Fatalf("sent %d bytes, typed %d:\n%.200s…", len(got), burst.Len()+3, got)
	}
}
