package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
)

// An MCP server that asks its question as soon as it starts (an eager
// server, or one an editor passes) reaches whoever the front end asks
// through, never a front end not yet listening: the REPL shows the form,
// the editor gets the permission request, print mode declines and says
// so. The server writes the answer it got to a file.

// askingServer is the config of an eager test server that asks at start;
// it writes its answer to answerFile in its working directory (the
// session's: the server runs in the box, whose /tmp is its own).
func askingServer() string {
	return fmt.Sprintf("[mcp.asker]\ncommand = %q\neager = true\nenv = { %s = \"1\", %s = %q }\n",
		os.Args[0], mcptest.EnvServe, mcptest.EnvAskAtStart, answerFile)
}

const answerFile = "mcp-answer"

// answerOf waits for the server's answer.
func answerOf(t *testing.T, file string) string {
	t.Helper()
	var got []byte
	waitUntil(t, "the server's answer", func() bool {
		got, _ = os.ReadFile(file)
		return len(got) > 0
	})
	return string(got)
}

func TestMCPQuestionAtStartInTheREPL(t *testing.T) {
	t.Parallel()
	tm := startTermOpts(t, oaitest.New(t), termOpts{config: askingServer(), height: 40})
	answer := filepath.Join(tm.dir, answerFile)
	tm.waitFor("asker asks: "+mcptest.StartQuestion, 30*time.Second)
	tm.keys("Tab")
	tm.waitFor("City", 5*time.Second)
	tm.keys("Enter") // the default
	tm.waitFor("[a]ccept  [d]ecline", 5*time.Second)
	tm.typeText("a")
	if got := answerOf(t, answer); got != "accept city=Lyon" {
		t.Fatalf("the server got %q\n%s", got, tm.screen())
	}
}

func TestMCPQuestionAtStartInAnEditor(t *testing.T) {
	t.Parallel()
	base := command(t, oaitest.New(t), "acp")
	answer := filepath.Join(base.Dir, answerFile)
	e := startEditor(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e.newSession(ctx, base.Dir, acp.McpServer{Stdio: &acp.McpServerStdio{Name: "asker", Command: os.Args[0], Args: []string{},
		Env: []acp.EnvVariable{{Name: mcptest.EnvServe, Value: "1"}, {Name: mcptest.EnvAskAtStart, Value: answerFile}}}})
	if got := answerOf(t, answer); got != "accept city=Lyon" {
		t.Fatalf("the server got %q", got)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if titles := strings.Join(e.titles, "\n"); !strings.Contains(titles, "asker asks: "+mcptest.StartQuestion) {
		t.Fatalf("the editor was asked: %q", titles)
	}
}

func TestMCPQuestionAtStartInPrintMode(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	answer := filepath.Join(work, answerFile)
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply {
		// The turn ends once the server has its answer: the notice is
		// written before chat exits.
		deadline := time.Now().Add(2 * time.Minute) // a bound, not a wait: the answer ends it
		for time.Now().Before(deadline) {
			if b, _ := os.ReadFile(answer); len(b) > 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		return oaitest.Answer{Text: "done"}
	})
	home := t.TempDir()
	writeConfig(t, home, askingServer())
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "hello"), home, work))
	if code != 0 || out != "done\n" {
		t.Fatalf("code %d, out %q, stderr %s", code, out, errOut)
	}
	if got := answerOf(t, answer); got != "decline" {
		t.Fatalf("the server got %q", got)
	}
	if !strings.Contains(errOut, "the MCP server asker asked for input ("+mcptest.StartQuestion+"); print mode cannot ask you, so it was declined") {
		t.Fatalf("stderr: %s", errOut)
	}
}
