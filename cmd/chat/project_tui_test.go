package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// lastUserText is the newest user message of the newest request.
func lastUserText(srv *oaitest.Server) string {
	reqs := srv.Requests()
	return lastUserOf(reqs[len(reqs)-1])
}

// TestTUIBangCommand: "!echo hi" runs as the person, shows its output,
// and the command with its output goes with the next message; no request
// is made for the ! line itself.
func TestTUIBangCommand(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "seen it"})
	tm := startTerm(t, srv)
	tm.typeText("!echo hi-from-$((6*7))")
	tm.waitFor("! shell mode", 5*time.Second)
	tm.keys("Enter")
	tm.waitFor("hi-from-42", 10*time.Second)
	tm.waitFor("go with your next message", 5*time.Second)
	if n := srv.RequestCount(); n != 0 {
		t.Fatalf("the ! line made %d requests", n)
	}
	tm.ask("what did it print?")
	tm.waitFor("seen it", 10*time.Second)
	got := lastUserText(srv)
	if !strings.Contains(got, "echo hi-from-$((6*7))") || !strings.Contains(got, "hi-from-42") || !strings.Contains(got, "what did it print?") {
		t.Fatalf("the next message went as %q", got)
	}
	// Ctrl+C stops a long one; the REPL goes on.
	tm.ask("!sleep 300; echo never")
	tm.waitFor("running your command", 5*time.Second)
	tm.keys("C-c")
	tm.waitFor("stopped", 10*time.Second)
	if strings.Contains(tm.screen(), "│ never") {
		t.Fatal("the stopped command went on")
	}
}

// TestTUIMentionAttachesTheFile: @ opens the list of paths, typing
// narrows it, Tab picks one, and the file goes with the message.
func TestTUIMentionAttachesTheFile(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "read it"})
	tm := startTermOpts(t, srv, termOpts{setup: func(dir string) {
		mkfile(t, filepath.Join(dir, "docs", "design-notes.md"), "THE-NOTES-BODY\n")
		mkfile(t, filepath.Join(dir, "main.go"), "package main\n")
		mkfile(t, filepath.Join(dir, "build", "design-notes.md"), "IGNORED\n")
		mkfile(t, filepath.Join(dir, ".gitignore"), "build/\n")
	}})
	tm.typeText("summarize @")
	tm.waitFor("main.go", 5*time.Second)
	tm.typeText("dnotes")
	screen := tm.waitFor("docs/design-notes.md", 5*time.Second)
	if strings.Contains(screen, "build/design-notes.md") {
		t.Fatalf("an ignored file was offered:\n%s", screen)
	}
	tm.keys("Tab")
	tm.waitFor("› summarize @docs/design-notes.md", 5*time.Second)
	tm.keys("Enter")
	tm.waitFor("read it", 10*time.Second)
	tm.waitFor("📎 docs/design-notes.md", 5*time.Second)
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	body := string(msgs[len(msgs)-1].Content)
	if !strings.Contains(body, "THE-NOTES-BODY") || !strings.Contains(body, "docs/design-notes.md") {
		t.Fatalf("the file did not go with the message: %s", body)
	}
}

// TestTUIMentionOutsideAsks: a mention of a file outside the working
// directory is not read until the person says so.
func TestTUIMentionOutsideAsks(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	mkfile(t, outside, "OUTSIDE-BODY\n")
	srv := oaitest.New(t, oaitest.Answer{Text: "got it"})
	tm := startTerm(t, srv)
	tm.ask("look at @" + outside)
	tm.waitFor("outside the working directory", 5*time.Second)
	if srv.RequestCount() != 0 {
		t.Fatal("sent before the person confirmed")
	}
	tm.keys("Enter")
	tm.waitFor("got it", 10*time.Second)
	if body := lastUserText(srv); !strings.Contains(body, "OUTSIDE-BODY") {
		t.Fatalf("confirmed, but not attached: %q", body)
	}
}

// TestTUIProjectHooksAskForTrust: the REPL asks once before a project's
// hooks run; "n" keeps them off, yes runs them and is remembered.
func TestTUIProjectHooksAskForTrust(t *testing.T) {
	t.Parallel()
	traces := t.TempDir()
	setup := func(dir string) {
		mkfile(t, filepath.Join(dir, ".chat", "hooks.toml"),
			"[[hooks.UserPromptSubmit]]\ncommand = \"touch "+traces+"/ran\"\nsandbox = \"off\"\n") // it writes outside
	}
	home := t.TempDir()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "fine"} })
	t.Run("declined", func(t *testing.T) {
		tm := startTermOpts(t, srv, termOpts{setup: setup, home: home})
		tm.waitFor("hooks.toml", 10*time.Second)
		screen := tm.waitFor("touch", 5*time.Second)
		// No model waits for this answer: nothing to tell it.
		if strings.Contains(screen, "ell it why") {
			t.Fatalf("the trust prompt offers to tell a model why:\n%s", screen)
		}
		tm.answer("n")
		tm.ask("one")
		tm.waitFor("fine", 10*time.Second)
		if fileExists(filepath.Join(traces, "ran")) {
			t.Fatal("declined, the hook ran")
		}
	})
	t.Run("trusted", func(t *testing.T) {
		tm := startTermOpts(t, srv, termOpts{setup: setup, home: home})
		tm.waitFor("hooks.toml", 10*time.Second)
		tm.answer("y")
		tm.waitFor("✓ trusted", 5*time.Second) // a yes is confirmed
		tm.ask("two")
		tm.waitFor("fine", 10*time.Second)
		if !fileExists(filepath.Join(traces, "ran")) {
			t.Fatalf("trusted, the hook did not run:\n%s", tm.screen())
		}
	})
	b, _ := os.ReadFile(filepath.Join(home, "s", "chat", "trusted-hooks.json"))
	if !strings.Contains(string(b), "hooks.toml") {
		t.Fatalf("the trust was not remembered: %s", b)
	}
}

// TestTUIInitAsksForAgentsMD: /init asks the model to write AGENTS.md
// with write_file, which asks the person like any write.
func TestTUIInitAsksForAgentsMD(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return oaitest.Answer{Text: "wrote AGENTS.md"}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "w", Name: "write_file", Args: `{"path":"AGENTS.md","content":"Run make test.\n"}`}}}
	})
	tm := startTerm(t, srv)
	tm.ask("/init")
	tm.waitFor("write_file", 10*time.Second)
	tm.answer("y")
	tm.waitFor("wrote AGENTS.md", 10*time.Second)
	if first := srv.Requests()[0]; !strings.Contains(lastUserOf(first), "AGENTS.md") || !strings.Contains(lastUserOf(first), "write_file") {
		t.Fatalf("/init asked %q", lastUserOf(first))
	}
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "AGENTS.md")); string(b) != "Run make test.\n" {
		t.Fatalf("AGENTS.md = %q", b)
	}
	// The answer shows before its turn ends (its checkpoint is written
	// then): the test's folders go only after.
	tm.waitIdle(30 * time.Second)
}

func lastUserOf(r oaitest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}
