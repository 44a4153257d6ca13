package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/oaitest"
)

// acpInProcess runs chat acp in-process, an editor on its pipes.
func (w *world) acpInProcess(args ...string) *acpEditor {
	w.t.Helper()
	d, _, _ := w.deps()
	d.stderr = io.Discard
	toChat, editorOut := io.Pipe()
	chatOut, toEditor := io.Pipe()
	d.stdin, d.stdout = toChat, toEditor
	done := make(chan error, 1)
	go func() {
		cmd := newRootCmd(d, nil)
		cmd.SetArgs(append([]string{"acp"}, args...))
		done <- cmd.Execute()
		toEditor.Close()
	}()
	return connectEditor(w.t, editorOut, chatOut, func() error { return <-done }, func() { toChat.Close() })
}

// TestACPInProcess: chat acp's wiring, in-process: a session opens in the
// editor's folder, a prompt is answered through the run, the screenless
// commands and modes are offered, and session/list finds the session.
func TestACPInProcess(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	w := newWorld(t, srv)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n[agents.reviewer]\ninstructions = \"You review.\"\ntools = [\"read_file\"]\n")
	e := w.acpInProcess()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	from := e.count()
	resp, err := e.prompt(ctx, id, acp.TextBlock("hello"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.Contains(e.text(from), "scripted demo model") {
		t.Fatalf("%+v %v %q", resp, err, e.text(from))
	}
	from = e.count()
	if _, err := e.prompt(ctx, id, acp.TextBlock("/context")); err != nil || !strings.Contains(e.text(from), "system") {
		t.Fatalf("/context: %v %q", err, e.text(from))
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: id, ModeId: "reviewer"}); err != nil {
		t.Fatalf("mode: %v", err)
	}
	list, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || string(list.Sessions[0].SessionId) != string(id) {
		t.Fatalf("list: %+v %v", list, err)
	}
}

// TestACPWorktree: chat acp --worktree NAME opens each editor session in
// the worktree NAME of its folder's repository: what the model writes
// lands there, the editor's folder is untouched.
func TestACPWorktree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git (apt-get install git)")
	}
	srv := oaitest.New(t, call("w1", "write_file", `{"path":"from-acp.txt","content":"here\n"}`), oaitest.Answer{Text: "written"})
	w := newWorld(t, srv)
	git := exec.Command("git", "-c", "user.name=p", "-c", "user.email=p@x", "init", "-q", "-b", "main")
	git.Dir = w.wd
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	git = exec.Command("git", "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "--allow-empty", "-m", "first")
	git.Dir = w.wd
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	writeConfig(t, w.home, "[tools]\nallow = [\"write_file\"]\n")
	e := w.acpInProcess("--worktree", "editor")
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	if _, err := e.prompt(ctx, id, acp.TextBlock("write it")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(w.wd+".worktrees", "editor", "from-acp.txt")); err != nil || string(b) != "here\n" {
		t.Fatalf("the worktree's file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(w.wd, "from-acp.txt")); err == nil {
		t.Fatal("the editor's folder was written")
	}
}
