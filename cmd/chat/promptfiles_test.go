package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// promptLibrary writes one prompt file of each form: chat's (the
// person's), Claude Code's in a namespace and Gemini CLI's (the
// project's), and one whose name is a built-in command.
func promptLibrary(t *testing.T, home, dir string) {
	t.Helper()
	files := map[string]string{
		filepath.Join(home, ".config", "chat", "commands", "fix.md"):   "---\ndescription: fix an issue by number\nargument-hint: [issue] [priority]\nmodel: fast-model\n---\nFix issue #$1 first (priority $2).\n",
		filepath.Join(dir, ".claude", "commands", "git", "commit.md"):  "Write a commit message for: $ARGUMENTS\n",
		filepath.Join(dir, ".gemini", "commands", "explain.toml"):      "description = \"explain a file\"\nprompt = \"Explain {{args}} to a newcomer.\"\n",
		filepath.Join(dir, ".chat", "commands", "compact.md"):          "this must never run as /compact\n",
		filepath.Join(home, ".config", "chat", "commands", "hello.md"): "Say hello.\n",
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
	promptLibrary(t, home, dir)
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
