package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// evil is an OSC title change, an OSC 52 clipboard write, an 8-bit string
// terminator and a bidi override: none may reach a terminal live.
const evil = "\x1b]0;PWNED\x07\x1b]52;c;UFdORUQ=\x07\xc2\x9c\u202eevil"

// TestEscapesNeverReachTheTerminal runs the commands whose output carries
// server-, model- or file-supplied text in a real terminal (tmux): model
// names (chat models and the "using model" notice), a tool call's name
// and a retry notice with the server's error body (print mode), session
// titles (sessions list), tool names (sessions show) and a Markdown
// export. The pane's title and the clipboard must stay untouched, and the
// sequences must show as inert pictures.
func TestEscapesNeverReachTheTerminal(t *testing.T) {
	t.Parallel()
	needTmux(t)
	srv := oaitest.New(t,
		oaitest.Fail{Status: 500, Body: "overloaded " + evil},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: evil, Args: `{"x":"` + strings.ReplaceAll(evil, "\x1b", `\u001b`) + `"}`}}},
		oaitest.Answer{Text: "answer " + evil})
	srv.SetModels("good-model", "bad"+evil)
	home, dir := t.TempDir(), t.TempDir()
	socket := fmt.Sprintf("chat-esc-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out)
	}
	t.Cleanup(func() { tmux("kill-server") })
	env := fmt.Sprintf("env -i HOME=%s PATH=%s TERM=xterm-256color XDG_CONFIG_HOME=%s/c XDG_DATA_HOME=%s/d OPENAI_BASE_URL=%s", home, os.Getenv("PATH"), home, home, srv.BaseURL())
	title := strings.ReplaceAll(evil, "'", "")
	script := fmt.Sprintf(`cd %[1]s; E="%[2]s"; C=%[3]s
$E $C models; $E $C -p "$(printf '%[4]s')"; ID=$($E $C sessions list --json | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -1)
$E $C sessions list; $E $C sessions show "$ID"; $E $C sessions export "$ID" --format md; echo ALL-DONE; sleep 600`,
		dir, env, chatBin, strings.NewReplacer("\x1b", `\033`, "\x07", `\007`, "\xc2\x9c", `\302\234`, "\u202e", `\342\200\256`).Replace(title))
	tmux("new-session", "-d", "-s", "main", "-x", "200", "-y", "100", "sh", "-c", script)
	tmux("set-option", "-g", "set-clipboard", "on")
	var screen string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(screen, "ALL-DONE"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the commands did not finish:\n%s", screen)
		}
		screen = tmux("capture-pane", "-p", "-t", "main", "-S", "-300")
	}
	if got := strings.TrimSpace(tmux("display-message", "-p", "-t", "main", "#{pane_title}")); strings.Contains(got, "PWNED") {
		t.Errorf("the pane title was set: %q", got)
	}
	if bufs := tmux("list-buffers"); strings.TrimSpace(bufs) != "" {
		t.Errorf("the clipboard was written: %q", bufs)
	}
	if strings.Contains(screen, "\u202e") {
		t.Error("a bidi override reached the screen")
	}
	for _, want := range []string{"good-model", "␛]0;PWNED␇", "overloaded", "[U+202E]"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "badPWNED") || strings.Contains(screen, "bad␛") {
		t.Errorf("a model name with escapes was listed:\n%s", screen)
	}
}

// TestTUIEscapesStayInert: in the REPL, a tool call's name, its arguments,
// an error body and the answer carry escapes; the pane title and the
// clipboard stay untouched.
func TestTUIEscapesStayInert(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: evil, Args: `{"x":1}`}}},
		oaitest.Fail{Status: 400, Body: "bad request " + evil},
		oaitest.Answer{Text: "fine " + evil})
	tm := startTerm(t, srv)
	tm.tmux("set-option", "-g", "set-clipboard", "on")
	tm.ask("go")
	tm.waitFor("bad request", 15*time.Second)
	tm.ask("again")
	tm.waitFor("fine", 10*time.Second)
	if got := strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "main", "#{pane_title}")); strings.Contains(got, "PWNED") {
		t.Errorf("the pane title was set: %q", got)
	}
	if bufs := strings.TrimSpace(tm.tmux("list-buffers")); bufs != "" {
		t.Errorf("the clipboard was written: %q", bufs)
	}
	if scr := tm.screen(); strings.Contains(scr, "\u202e") || !strings.Contains(scr, "␛]0;PWNED␇") {
		t.Errorf("screen:\n%s", scr)
	}
}
