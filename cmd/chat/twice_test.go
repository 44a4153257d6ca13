package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// TestStartedCallNeverRunsTwice: chat killed while a command runs; the
// next --continue does not run it again (count.txt got "run" twice), says
// so to the model, and the first run's child is gone.
func TestStartedCallNeverRunsTwice(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		w := newBoxedWorld(t)
		marker := fmt.Sprintf("chat-test-sleeper-%d-twice-%s", os.Getpid(), mode)
		srv := oaitest.New(t,
			oaitest.Answer{Calls: []oaitest.Call{{ID: "call_count", Name: "run_shell",
				Args: fmt.Sprintf(`{"command":"echo run >> count.txt; %s"}`, execAs(marker, "sleep 20"))}}},
			oaitest.Answer{Text: "the status is fine"})
		cmd := w.chat(t, srv, "--sandbox", mode, "--yes", "-p", "count")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		waitForProcess(t, marker, true)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		waitForProcess(t, marker, false)
		out, errOut, code := run(t, w.chat(t, srv, "--sandbox", mode, "--continue", "--yes", "-p", "status?"))
		if code != 0 || !strings.Contains(out, "the status is fine") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if b, _ := os.ReadFile(filepath.Join(w.dir, "count.txt")); string(b) != "run\n" {
			t.Fatalf("count.txt = %q: the command ran again\n%s", b, errOut)
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if got := last.Shape(); got != "system user assistant(call_count) tool:call_count user" {
			t.Fatalf("continued with %s", got)
		}
		if !strings.Contains(lastToolText(last.Messages), "not run again") {
			t.Fatalf("the model was not told: %q", lastToolText(last.Messages))
		}
	})
}

// TestOneWriterPerSession: a second chat --continue while the first still
// works on the session starts a new one (or exits with --if-busy exit),
// says which process holds it, never runs the first one's call, and the
// first one's answer reaches the file.
func TestOneWriterPerSession(t *testing.T) {
	t.Parallel()
	w := newBoxedWorld(t)
	fifo := filepath.Join(w.dir, "gate.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "tool":
			return oaitest.Answer{Text: "finished " + last.ToolCallID}
		case strings.Contains(last.Text(), "first"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "call_gate", Name: "run_shell", Args: `{"command":"echo ran >> count.txt; read x < gate.fifo"}`}}}
		}
		return oaitest.Answer{Text: "second answered"}
	})
	if _, errOut, code := run(t, w.chat(t, srv, "-p", "hello")); code != 0 {
		t.Fatal(errOut)
	}
	first := w.chat(t, srv, "--continue", "--yes", "-p", "first")
	var firstOut strings.Builder
	first.Stdout = &firstOut
	stderr, _ := first.StderrPipe()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, stderr, "run_shell")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	_, errOut, code := run(t, w.chat(t, srv, "--continue", "--yes", "--if-busy", "exit", "-p", "second"))
	if code != 1 || !strings.Contains(errOut, fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Fatalf("--if-busy exit: %d %s", code, errOut)
	}
	out, errOut, code := run(t, w.chat(t, srv, "--continue", "--yes", "-p", "second"))
	if code != 0 || !strings.Contains(out, "second answered") || !strings.Contains(errOut, "in use by another chat") {
		t.Fatalf("second: %d\n%s\n%s", code, out, errOut)
	}
	// Let the first finish.
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("go\n")
	f.Close()
	if err := first.Wait(); err != nil || !strings.Contains(firstOut.String(), "finished call_gate") {
		t.Fatalf("first: %v %q", err, firstOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "count.txt")); string(b) != "ran\n" {
		t.Fatalf("count.txt = %q", b)
	}
	// The first session's file has the first run's answer.
	st := session.Store{Dir: filepath.Join(w.home, ".local", "share", "chat", "sessions")}
	all, err := st.List()
	if err != nil || len(all) != 2 {
		t.Fatalf("%d sessions, %v", len(all), err)
	}
	found := false
	for _, info := range all {
		l, _ := session.Load(info.Path)
		for _, m := range l.Messages {
			if strings.Contains(m.Content, "finished call_gate") {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the first run's answer never reached its session file")
	}
}

// TestTUIResumeOwnSession: /resume of the session the REPL is writing is
// not "in use by another chat": this chat holds it.
func TestTUIResumeOwnSession(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer"}, oaitest.Answer{Text: "second answer"})
	tm := startTerm(t, srv)
	tm.ask("first")
	tm.waitFor("first answer", 10*time.Second)
	files, _ := filepath.Glob(filepath.Join(tm.home, ".local", "share", "chat", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
	tm.ask("/resume " + id)
	tm.waitFor("── resumed a session", 5*time.Second)
	if strings.Contains(tm.screen(), "in use") {
		t.Fatalf("its own session was refused:\n%s", tm.screen())
	}
	tm.ask("second")
	tm.waitFor("second answer", 10*time.Second)
}

// TestTUICommandQueuedDuringTurn: a command that needs an idle session,
// typed while a turn runs, is queued and runs when the turn ends (it was
// refused, so a person who typed /new had to type it again).
func TestTUICommandQueuedDuringTurn(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "slow answer here", Piece: 8, Gate: gate, GateAfter: 1},
		oaitest.Answer{Text: "fresh answer"})
	tm := startTerm(t, srv)
	tm.ask("first")
	<-gate.Entered()
	tm.ask("/new")
	tm.waitFor("/new runs when this turn ends", 5*time.Second)
	tm.waitFor("⏭ after turn /new", 5*time.Second)
	gate.Release()
	tm.waitFor("── new session ──", 10*time.Second)
	tm.waitIdle(10 * time.Second)
	tm.ask("second")
	tm.waitFor("fresh answer", 10*time.Second)
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; len(last.Messages) != 2 { // system + "second": the new session
		t.Fatalf("the second question went with %d messages", len(last.Messages))
	}
}
