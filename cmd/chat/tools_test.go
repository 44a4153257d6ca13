package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
)

func TestPrintModeRefusesWithoutYes(t *testing.T) {
	t.Parallel()
	write := oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"hi\n"}`}}}
	srv := oaitest.New(t, write, oaitest.Answer{Text: "could not write"}, write, oaitest.Answer{Text: "written"})
	home, dir := t.TempDir(), t.TempDir()
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "write out.txt"), home, dir))
	if code != 0 || !strings.Contains(out, "could not write") || !strings.Contains(errOut, "needs the user's approval") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Fatal("the file was written without approval")
	}
	if got := srv.Requests()[1].Messages[3].Text(); !strings.Contains(got, "--yes") {
		t.Fatalf("the model was told %q", got)
	}
	if out, _, code := run(t, inHome(t, command(t, srv, "--yes", "-p", "write out.txt"), home, dir)); code != 0 || !strings.Contains(out, "written") {
		t.Fatal(out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Fatal(err, string(b))
	}
}

// TestTUIApproveThenCancelShell approves a write after seeing its diff,
// then approves a long command and stops it with Ctrl+C: the process tree
// is gone and the session goes on.
func TestTUIApproveThenCancelShell(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"hello.txt","content":"hello\n"}`}}},
		oaitest.Answer{Text: "file written"},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"sleep 300 & echo $! > child.pid; wait"}`}}},
		oaitest.Answer{Text: "after the cancel"})
	tm := startTerm(t, srv, "--sandbox", "off")
	tm.ask("write hello.txt")
	tm.waitFor("+hello", 10*time.Second) // the diff, before anything is written
	if _, err := os.Stat(filepath.Join(tm.dir, "hello.txt")); err == nil {
		t.Fatal("written before approval")
	}
	tm.answer("y")
	tm.waitFor("file written", 10*time.Second)
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "hello.txt")); string(b) != "hello\n" {
		t.Fatalf("file %q", b)
	}
	tm.ask("start the server")
	tm.waitFor("$ sleep 300", 10*time.Second)
	tm.answer("y")
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		b, _ := os.ReadFile(filepath.Join(tm.dir, "child.pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	tm.keys("C-c")
	tm.waitFor("⏹ cancelled", 5*time.Second)
	for deadline := time.Now().Add(3 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d still runs", pid)
		}
	}
	tm.ask("next")
	tm.waitFor("after the cancel", 10*time.Second)
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

func TestContextWindowPrecedence(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	caps := func(cfg config.Config, model string, probe bool) []int {
		rec := &listener.Recorder{}
		a := agent.New(agent.Options{Client: llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: model}), Listeners: listener.NewList(rec)})
		cfg.BaseURL = srv.BaseURL()
		contextWindow(context.Background(), cfg, a, probe)
		var out []int
		for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			for _, e := range rec.Events() {
				out = append(out, e.(listener.ContextCap).Tokens)
			}
			if len(out) > 0 || !probe || time.Now().After(deadline) {
				return out
			}
		}
	}
	if got := caps(config.Config{ContextWindow: 5000}, "gpt-4o", true); len(got) != 1 || got[0] != 5000 {
		t.Fatalf("explicit: %v", got)
	}
	if got := caps(config.Config{}, "gpt-4o", false); len(got) != 1 || got[0] != 128000 {
		t.Fatalf("table: %v", got)
	}
	if got := caps(config.Config{}, "my-finetune", false); len(got) != 0 {
		t.Fatalf("unknown: %v", got)
	}
}
