package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// snapshotTree reads every file under dir: path → mode and bytes.
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %v %q\n", rel, fi.Mode(), data)
		return nil
	})
	return b.String()
}

// TestRewindThroughTheBinary: a shell command creates, modifies, deletes
// and re-modes files in a folder that is not a git repository; chat
// checkpoints lists them; chat rewind brings the tree back byte for byte
// and cuts the conversation; a file the person edited after the agent is
// left alone and listed, until --force.
func TestRewindThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newBoxedWorld(t)
	os.RemoveAll(filepath.Join(w.dir, ".git")) // not a repository
	_ = os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte("original a\n"), 0o644)
	_ = os.WriteFile(filepath.Join(w.dir, "b.txt"), []byte("original b\n"), 0o644)
	_ = os.MkdirAll(filepath.Join(w.dir, "sub"), 0o755)
	_ = os.WriteFile(filepath.Join(w.dir, "sub", "c.sh"), []byte("#!/bin/sh\n"), 0o755)
	before := snapshotTree(t, w.dir)

	shell := func(id, command string) oaitest.Answer {
		return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell", Args: fmt.Sprintf(`{"command":%q}`, command)}}}
	}
	srv := oaitest.New(t,
		shell("s1", "echo changed > a.txt; rm b.txt; mkdir -p new && echo n > new/n.txt; chmod 600 sub/c.sh"), oaitest.Answer{Text: "turn one done"},
		oaitest.Answer{Text: "after the rewind"},
		shell("s2", "echo again > a.txt; echo e > e.txt"), oaitest.Answer{Text: "turn three done"})
	chat := func(args ...string) string {
		t.Helper()
		out, errOut, code := run(t, w.chat(t, srv, args...))
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out
	}
	chat("--yes", "-p", "change things")
	if snapshotTree(t, w.dir) == before {
		t.Fatal("the command changed nothing")
	}
	list := chat("checkpoints")
	for _, want := range []string{"1  change things", "+ new/n.txt", "~ a.txt", "- b.txt", "~ sub/c.sh"} {
		if !strings.Contains(list, want) {
			t.Fatalf("chat checkpoints lacks %q:\n%s", want, list)
		}
	}
	out := chat("rewind")
	if got := snapshotTree(t, w.dir); got != before {
		t.Fatalf("after chat rewind:\n%s\nwant\n%s\n%s", got, before, out)
	}
	if !strings.Contains(out, "conversation rewound to before turn 1") {
		t.Fatalf("rewind said:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "new")); err == nil {
		t.Fatal("the folder the agent made is left behind, empty")
	}
	// The conversation goes on from before turn 1.
	chat("--continue", "-p", "hello again")
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user" {
		t.Fatalf("after the rewind the model got %s", got)
	}

	// Turn 3 changes a.txt; the person edits it afterwards.
	chat("--continue", "--yes", "-p", "change again")
	_ = os.WriteFile(filepath.Join(w.dir, "a.txt"), []byte("the person's edit\n"), 0o644)
	out = chat("rewind", "--files-only")
	if !strings.Contains(out, "left alone") || !strings.Contains(out, "a.txt") || !strings.Contains(out, "restored - e.txt") {
		t.Fatalf("rewind said:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "the person's edit\n" {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
	if fileExists(filepath.Join(w.dir, "e.txt")) {
		t.Fatal("the agent's new file was not removed")
	}
	chat("rewind", "--files-only", "--force")
	if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "original a\n" {
		t.Fatalf("--force: %q", b)
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// TestTUIRewind: /rewind in the REPL lists the turns with their files,
// and /rewind 1 puts the files back, cuts the conversation and offers the
// question again in the input.
func TestTUIRewind(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"echo agent > a.txt; echo new > x.txt"}`}}},
		oaitest.Answer{Text: "made them"},
		oaitest.Answer{Text: "fresh start"})
	tm := startTermOpts(t, srv, termOpts{setup: func(dir string) {
		_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("mine\n"), 0o644)
	}})
	tm.ask("make the files")
	tm.waitFor("made them", 10*time.Second)
	tm.ask("/rewind")
	tm.waitFor("+ x.txt", 5*time.Second)
	tm.waitFor("~ a.txt", 5*time.Second)
	tm.ask("/rewind 1")
	tm.waitFor("conversation rewound to before turn 1", 5*time.Second)
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "a.txt")); string(b) != "mine\n" || fileExists(filepath.Join(tm.dir, "x.txt")) {
		t.Fatalf("files not rewound: a.txt %q, x.txt exists %v", b, fileExists(filepath.Join(tm.dir, "x.txt")))
	}
	tm.waitForInput("› make the files")
	tm.keys("C-u")
	tm.ask("something else")
	tm.waitFor("fresh start", 10*time.Second)
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user" {
		t.Fatalf("after /rewind the model got %s", got)
	}
}

// TestResumeShowsWhereYouWere: chat --continue in the REPL shows the
// resumed header and the last exchange, and puts back in the input the
// question that got no answer; the "got no answer" note is not said again
// on every later --continue (one session printed 18 of them).
func TestResumeShowsWhereYouWere(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Text: "the first answer"},
		oaitest.Fail{Status: 400, Message: "no"},
		oaitest.Fail{Status: 400, Message: "no"},
		oaitest.Fail{Status: 400, Message: "no"})
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "the second answer"} })
	home := t.TempDir()
	var stderr strings.Builder
	tm := startTermOpts(t, srv, termOpts{home: home, noWait: true, setup: func(dir string) {
		run1 := func(args ...string) (string, string, int) {
			return run(t, inHome(t, command(t, srv, args...), home, dir))
		}
		run1("-p", "the first question")
		for _, q := range []string{"a failed question", "another failed one", "the lost question"} {
			_, errOut, code := run1("--continue", "-p", q)
			if code == 0 {
				t.Errorf("the failing turn exited 0: %s", errOut)
			}
			stderr.WriteString(errOut)
		}
	}}, "--continue")
	// Each failed question is noted once, on the next load: 2 notes, not
	// 1 + 2 (the note used to repeat for every earlier question).
	if n := strings.Count(stderr.String(), "got no answer"); n != 2 {
		t.Errorf("the note was said %d times, want 2:\n%s", n, stderr.String())
	}
	tm.waitFor("── resumed a session of", 10*time.Second)
	tm.waitForInput("› the lost question")
	tm.keys("Enter")
	tm.waitFor("the second answer", 10*time.Second)
}

// waitForInput waits (as waitFor does) until the input box holds want:
// the screen may show the text elsewhere (the transcript) before the
// input is drawn.
func (tm *pane) waitForInput(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(5 * loadAllowance * time.Second)
	for {
		scr := tm.screen()
		if inputLine(scr) == want {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the input never held %q; the screen:\n%s", want, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// inputLine is the line of the input box: the one above the status bar.
func inputLine(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, "scripted-model ·") && i > 0 {
			return strings.TrimSpace(lines[i-1])
		}
	}
	return ""
}

// TestCheckpointsAfterACrash: chat killed -9 during a command that had
// already changed two files: chat checkpoints lists both changes and says
// the turn was interrupted (it said "tools ran; no file changed").
func TestCheckpointsAfterACrash(t *testing.T) {
	t.Parallel()
	w := newBoxedWorld(t)
	_ = os.WriteFile(filepath.Join(w.dir, "keep.txt"), []byte("kept\n"), 0o644)
	srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell",
		Args: `{"command":"echo made > made.txt; echo changed >> keep.txt; sleep 20"}`}}})
	cmd := w.chat(t, srv, "--yes", "-p", "change and wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(w.dir, "keep.txt")); string(b) == "kept\nchanged\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never ran")
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	out, errOut, code := run(t, w.chat(t, srv, "checkpoints"))
	if code != 0 || !strings.Contains(out, "+ made.txt") || !strings.Contains(out, "~ keep.txt") || !strings.Contains(out, "interrupted") {
		t.Fatalf("chat checkpoints after the crash (exit %d):\n%s\n%s", code, out, errOut)
	}
}

// TestTUIResumeSaysWhatChatStoppedIn: resumed after kill -9, the REPL
// says at once, before anything is typed, which call had started (not
// run again) and which had not run yet (it runs with the next message);
// both were shown only under the next message, as if run then.
func TestTUIResumeSaysWhatChatStoppedIn(t *testing.T) {
	t.Parallel()
	t.Run("started", func(t *testing.T) {
		t.Parallel()
		srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"touch begun; sleep 30"}`}}})
		home := t.TempDir()
		tm := startTermOpts(t, srv, termOpts{home: home, noWait: true, setup: func(dir string) {
			cmd := inHome(t, command(t, srv, "--yes", "-p", "go"), home, dir)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(30 * time.Second); !fileExists(filepath.Join(dir, "begun")); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the command never started")
				}
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}}, "--continue")
		tm.waitFor("chat stopped while run_shell", 10*time.Second)
	})
	t.Run("waiting", func(t *testing.T) {
		t.Parallel()
		srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"later.txt","content":"x\n"}`}}})
		home := t.TempDir()
		first := startTermOpts(t, srv, termOpts{home: home, config: "[sandbox]\nmode = \"off\"\n"})
		first.ask("write it")
		first.waitFor("later.txt", 10*time.Second) // the approval prompt
		sh, _ := strconv.Atoi(strings.TrimSpace(first.tmux("display-message", "-p", "-t", "main", "#{pane_pid}")))
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh, sh))
		for _, f := range strings.Fields(string(children)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		first.exitStatus(10 * time.Second)
		_ = exec.Command("tmux", "-L", first.socket, "kill-server").Run() // the next pane takes its socket name
		list, _, _ := run(t, inHome(t, command(t, nil, "sessions", "list"), home, first.dir))
		id := strings.Fields(strings.Split(strings.TrimSpace(list), "\n")[len(strings.Split(strings.TrimSpace(list), "\n"))-1])[0]
		second := startTermOpts(t, srv, termOpts{home: home, config: "[sandbox]\nmode = \"off\"\n", noWait: true}, "--resume", id)
		second.waitFor("had not run when chat stopped", 10*time.Second)
	})
}
