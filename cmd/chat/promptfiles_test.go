package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/oaitest"
)

// promptLibrary writes one prompt file of each form: chat's (the
// person's), Claude Code's in a namespace and Gemini CLI's (the
// project's), and one whose name is a built-in command.
func promptLibrary(t *testing.T, configHome, dir string) {
	t.Helper()
	files := map[string]string{
		filepath.Join(configHome, "chat", "commands", "fix.md"):       "---\ndescription: fix an issue by number\nargument-hint: [issue] [priority]\nmodel: fast-model\n---\nFix issue #$1 first (priority $2).\n",
		filepath.Join(dir, ".claude", "commands", "git", "commit.md"): "Write a commit message for: $ARGUMENTS\n",
		filepath.Join(dir, ".gemini", "commands", "explain.toml"):     "description = \"explain a file\"\nprompt = \"Explain {{args}} to a newcomer.\"\n",
		filepath.Join(dir, ".chat", "commands", "compact.md"):         "this must never run as /compact\n",
		filepath.Join(configHome, "chat", "commands", "hello.md"):     "Say hello.\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPromptFilesInPrintMode: chat -p "/name args" runs each form with
// its arguments (the front matter's model named by the request); the
// project's files wait for trust; a built-in's name stays the built-in's.
func TestPromptFilesInPrintMode(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "ok"} })
	home, dir := t.TempDir(), t.TempDir()
	promptLibrary(t, filepath.Join(home, ".config"), dir)
	ask := func(line string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, "-p", line), home, dir))
	}
	if _, errOut, code := ask(`/fix 42 "very high"`); code != 0 {
		t.Fatalf("/fix: %d %s", code, errOut)
	}
	last := func() oaitest.Request { r := srv.Requests(); return r[len(r)-1] }
	if got := last(); got.Model != "fast-model" || !strings.Contains(lastUserOf(got), "Fix issue #42 first (priority very high).") {
		t.Fatalf("/fix sent %q to %s", lastUserOf(got), got.Model)
	}
	// The project's commands: refused until trusted, then run.
	_, errOut, code := ask("/git:commit the parser fix")
	if code == 0 || !strings.Contains(errOut, "not trusted yet") || !strings.Contains(errOut, "chat commands trust") {
		t.Fatalf("an untrusted project command ran: %d %s", code, errOut)
	}
	if out, errOut, code := run(t, inHome(t, command(t, srv, "commands", "trust"), home, dir)); code != 0 || !strings.Contains(out, "git:commit") {
		t.Fatalf("chat commands trust: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := ask("/git:commit the parser fix"); code != 0 || !strings.Contains(lastUserOf(last()), "Write a commit message for: the parser fix") {
		t.Fatalf("/git:commit: %d %s %q", code, errOut, lastUserOf(last()))
	}
	if _, errOut, code := ask("/explain main.go"); code != 0 || !strings.Contains(lastUserOf(last()), "Explain main.go to a newcomer.") {
		t.Fatalf("/explain: %d %s %q", code, errOut, lastUserOf(last()))
	}
	if got := last().Model; got != "scripted-model" {
		t.Fatalf("a file without a model ran with %q", got)
	}
	n := len(srv.Requests())
	if _, _, _ = ask("/compact"); len(srv.Requests()) != n {
		t.Fatalf("the project's compact.md ran as /compact: %q", lastUserOf(last()))
	}
	list, errOut, code := run(t, inHome(t, command(t, srv, "commands"), home, dir))
	for _, want := range []string{"/fix [issue] [priority]", "fix an issue by number", "~/.config/chat/commands", "/git:commit", ".claude/commands", "/explain", "explain a file", ".gemini/commands", "/compact", "not run: /compact is built in"} {
		if code != 0 || !strings.Contains(list, want) {
			t.Fatalf("chat commands lacks %q:\n%s\n%s", want, list, errOut)
		}
	}
}

// TestTUIPromptFiles: in the REPL, Tab completion offers the prompt files
// with their descriptions, a person's file runs with its arguments (the
// front matter's model named), a project's asks first (yes trusts it),
// /help lists them with where each is from, and a built-in's name stays
// the built-in's.
func TestTUIPromptFiles(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "done as asked"} })
	home := t.TempDir()
	tm := startTermOpts(t, srv, termOpts{home: home, setup: func(dir string) { promptLibrary(t, filepath.Join(home, "c"), dir) }})
	tm.typeText("/fi")
	tm.keys("Tab")
	tm.waitFor("› /fix", 10*time.Second)
	tm.keys("C-u")
	tm.typeText("/")
	screen := tm.waitFor("fix an issue by number", 10*time.Second)
	if !strings.Contains(screen, "explain a file") {
		t.Fatalf("the completion list lacks the project's command:\n%s", screen)
	}
	tm.keys("C-u")
	tm.ask(`/fix 7 "right now"`)
	tm.waitFor("done as asked", time.Minute)
	if got := lastUserOf(srv.Requests()[0]); !strings.Contains(got, "Fix issue #7 first (priority right now).") || srv.Requests()[0].Model != "fast-model" {
		t.Fatalf("/fix sent %q to %s", got, srv.Requests()[0].Model)
	}
	tm.ask("/explain go.mod")
	tm.waitFor("run this project's command /explain", time.Minute)
	tm.answer("y")
	deadline := time.Now().Add(time.Minute)
	for len(srv.Requests()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the trusted command never ran:\n%s", tm.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := lastUserOf(srv.Requests()[1]); !strings.Contains(got, "Explain go.mod to a newcomer.") || srv.Requests()[1].Model != "scripted-model" {
		t.Fatalf("/explain sent %q to %s", got, srv.Requests()[1].Model)
	}
	tm.waitIdle(time.Minute)
	// Claude Code's form, in its namespace.
	tm.ask("/git:commit the parser fix")
	tm.waitFor("run this project's command /git:commit", time.Minute)
	tm.answer("y")
	for deadline := time.Now().Add(time.Minute); len(srv.Requests()) < 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("/git:commit never ran:\n%s", tm.screen())
		}
	}
	if got := lastUserOf(srv.Requests()[2]); !strings.Contains(got, "Write a commit message for: the parser fix") {
		t.Fatalf("/git:commit sent %q", got)
	}
	tm.waitIdle(time.Minute)
	tm.ask("/help")
	// Each waited for: a long notice may reach the screen over frames.
	for _, want := range []string{"prompt files", "/git:commit", ".claude/commands", "/compact", "not run: /compact is built in"} {
		tm.waitFor(want, time.Minute)
	}
}

// TestACPPromptFiles: an editor is offered the prompt files as available
// commands, with their descriptions, and running one sends its prompt
// (to the front matter's model).
func TestACPPromptFiles(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "done as asked"} })
	w := newWorld(t, srv)
	promptLibrary(t, filepath.Join(w.home, ".config"), w.wd)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n")
	e := w.acpInProcess()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	deadline := time.Now().Add(time.Minute)
	var offered []string
	for len(offered) == 0 && time.Now().Before(deadline) {
		e.mu.Lock()
		for _, u := range e.updates {
			if u.AvailableCommandsUpdate != nil {
				offered = nil
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					offered = append(offered, c.Name+": "+c.Description)
				}
			}
		}
		e.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	all := strings.Join(offered, "\n")
	if !strings.Contains(all, "fix: fix an issue by number (~/.config/chat/commands)") || !strings.Contains(all, "git:commit") {
		t.Fatalf("offered:\n%s", all)
	}
	if _, err := e.prompt(ctx, id, acp.TextBlock("/fix 9 soon")); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Model != "fast-model" || !strings.Contains(lastUserOf(r), "Fix issue #9 first (priority soon).") {
		t.Fatalf("/fix sent %q to %s", lastUserOf(r), r.Model)
	}
}

// TestServePromptFiles: a line typed on the page of chat serve runs a
// prompt file as in the terminal; the project's untrusted one is refused
// on the page, the line given back.
func TestServePromptFiles(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "done as asked"} })
	cmd := command(t, srv)
	home := envOf(cmd.Env, "HOME")
	promptLibrary(t, filepath.Join(home, ".config"), cmd.Dir)
	s := startServeIn(t, cmd)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "a person's prompt file, then the project's",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS("#input")),
		send(`/fix 5 "on the page"`, false),
		logHas("done as asked"),
		until(`document.getElementById('stop').disabled`),
		send("/explain go.mod", false),
		logHas("is not trusted yet"),
		until(`document.getElementById('input').value === '/explain go.mod'`),
	)
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(lastUserOf(reqs[0]), "Fix issue #5 first (priority on the page).") {
		t.Fatalf("sent: %d requests, %q", len(reqs), lastUserOf(reqs[0]))
	}
}
