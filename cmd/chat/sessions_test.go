package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// env of command() puts HOME in a temp dir; the same HOME must be shared
// by the runs of one test, so these tests build their commands with it.
func inHome(t *testing.T, cmd *exec.Cmd, home, dir string) *exec.Cmd {
	t.Helper()
	for i, e := range cmd.Env {
		if strings.HasPrefix(e, "HOME=") {
			cmd.Env[i] = "HOME=" + home
		}
		if strings.HasPrefix(e, "XDG_CONFIG_HOME=") {
			cmd.Env[i] = "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")
		}
	}
	cmd.Dir = dir
	return cmd
}

func TestSessionsAreSavedAndContinued(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer"}, oaitest.Answer{Text: "second answer"}, oaitest.Answer{Text: "not saved"}, oaitest.Answer{Text: "third answer"})
	run1 := func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), home, dir))
	}
	if out, _, code := run1("-p", "first question"); code != 0 || !strings.Contains(out, "first answer") {
		t.Fatal(out, code)
	}
	if out, _, code := run1("--continue", "-p", "and then?"); code != 0 || !strings.Contains(out, "second answer") {
		t.Fatal(out, code)
	}
	reqs := srv.Requests()
	if got := reqs[1].Shape(); got != "system user assistant user" {
		t.Fatalf("--continue sent %s", got)
	}
	if _, _, code := run1("--no-save", "-p", "not saved"); code != 0 {
		t.Fatal(code)
	}

	list, _, _ := run1("sessions", "list", "--json")
	var infos []session.Info
	if err := json.Unmarshal([]byte(list), &infos); err != nil || len(infos) != 1 || infos[0].Messages != 5 || infos[0].Title != "first question" {
		t.Fatalf("err %v, %d sessions: %s", err, len(infos), list)
	}
	id := infos[0].ID
	show, _, _ := run1("sessions", "show", id[:8])
	latest, errOut, code := run1("sessions", "show") // without an id: this directory's latest
	for _, want := range []string{"› first question", "first answer", "› and then?", "second answer"} {
		if !strings.Contains(show, want) {
			t.Fatalf("show lacks %q:\n%s", want, show)
		}
	}
	if code != 0 || latest != show {
		t.Fatalf("sessions show without an id (exit %d):\n%s%s", code, latest, errOut)
	}
	md, _, _ := run1("sessions", "export", id, "--format", "md")
	js, _, _ := run1("sessions", "export", id, "--format", "json")
	if !strings.Contains(md, "## User\n\nfirst question") || !json.Valid([]byte(js)) {
		t.Fatalf("export:\n%s\n%s", md, js)
	}
	if out, _, code := run1("--resume", id[:10], "-p", "third"); code != 0 || !strings.Contains(out, "third answer") {
		t.Fatal(out, code)
	}
	if _, errOut, code := run1("--resume", "nope", "-p", "x"); code != 1 || !strings.Contains(errOut, "no such session") {
		t.Fatal(errOut, code)
	}

	// The API key never reaches a file; modes are private.
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && strings.HasSuffix(p, "sessions") {
				if fi, _ := d.Info(); fi.Mode().Perm() != 0o700 {
					t.Errorf("%s mode %v", p, fi.Mode().Perm())
				}
			}
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "sk-test-secret") {
			t.Errorf("the API key is in %s", p)
		}
		if fi, _ := d.Info(); strings.HasSuffix(p, ".jsonl") && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", p, fi.Mode().Perm())
		}
		return nil
	})
	if out, _, code := run1("sessions", "rm", id); code != 0 || !strings.Contains(out, "removed") {
		t.Fatal(out)
	}
}

// TestKill9ThenContinue kills the binary with SIGKILL while a tool call is
// running, then continues: the pending call runs and the strict server
// accepts the history. The blocking call is a shell read of a FIFO (the
// file tools refuse FIFOs outright, so they would not block).
func TestKill9ThenContinue(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	fifo := filepath.Join(dir, "slow.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t,
		oaitest.Answer{Text: "Reading it.", Calls: []oaitest.Call{{ID: "call_fifo", Name: "run_shell", Args: `{"command":"read line < slow.fifo; echo \"$line\""}`}}},
		oaitest.Answer{Text: "the file said hello"})
	cmd := inHome(t, command(t, srv, "--yes", "-p", "read slow.fifo"), home, dir)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 200)
	n, _ := io.ReadAtLeast(stderr, buf, len("→ run_shell")) // the tool is running, blocked on the FIFO
	if !strings.Contains(string(buf[:n]), "run_shell") {
		t.Fatalf("stderr %q", buf[:n])
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	// The killed run's shell may still be waiting on the FIFO (SIGKILL
	// leaves it orphaned), so feed every reader that shows up, not just one.
	fed := make(chan struct{})
	defer close(fed)
	go func() {
		for {
			select {
			case <-fed:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_, _ = w.WriteString("hello\n")
				w.Close()
			}
		}
	}()
	out, errOut, code := run(t, inHome(t, command(t, srv, "--yes", "--continue", "-p", "what did it say?"), home, dir))
	if code != 0 || !strings.Contains(out, "the file said hello") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user assistant(call_fifo) tool:call_fifo user" {
		t.Fatalf("continued with %s", got)
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

func TestAttachFilesInPrintMode(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "I see them"})
	dir := t.TempDir()
	png := filepath.Join(dir, "shot.png")
	notes := filepath.Join(dir, "notes.md")
	_ = os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o600)
	_ = os.WriteFile(notes, []byte("# remember the milk\n"), 0o600)
	home := t.TempDir()
	out, errOut, code := run(t, inHome(t, command(t, srv, "-f", png, "-f", notes, "-p", "what are these?"), home, dir))
	if code != 0 || !strings.Contains(out, "I see them") {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	// The session shows what went with the message.
	list, _, _ := run(t, inHome(t, command(t, srv, "sessions", "list", "--json"), home, dir))
	var sessions []struct{ ID string }
	_ = json.Unmarshal([]byte(list), &sessions)
	if len(sessions) != 1 {
		t.Fatalf("sessions: %s", list)
	}
	for _, args := range [][]string{{"sessions", "show", sessions[0].ID}, {"sessions", "export", sessions[0].ID, "--format", "md"}} {
		shown, _, _ := run(t, inHome(t, command(t, srv, args...), home, dir))
		if !strings.Contains(shown, "shot.png (image/png") || !strings.Contains(shown, "notes.md") {
			t.Errorf("%v leaves out the attachments:\n%s", args, shown)
		}
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Messages[1].Content, &parts); err != nil || len(parts) != 3 {
		t.Fatalf("content %s: %v", srv.Requests()[0].Messages[1].Content, err)
	}
	if parts[0].Text != "what are these?" || !strings.HasPrefix(parts[1].ImageURL.URL, "data:image/png;base64,") || !strings.Contains(parts[2].Text, "remember the milk") {
		t.Fatalf("parts %+v", parts)
	}
	_, errOut, code = run(t, command(t, srv, "-f", filepath.Join(dir, "nope.pdf"), "-p", "x"))
	if code != 1 || !strings.Contains(errOut, "nope.pdf") {
		t.Fatal(errOut)
	}
}

// TestKill9MidStream kills the binary while the answer streams; the
// question is on disk and --continue sends a history the server accepts.
func TestKill9MidStream(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "an answer that will never finish", Piece: 10, Gate: gate, GateAfter: 1},
		oaitest.Answer{Text: "fresh answer"})
	cmd := inHome(t, command(t, srv, "-p", "first question"), home, dir)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(stdout, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	out, errOut, code := run(t, inHome(t, command(t, srv, "--continue", "-p", "second question"), home, dir))
	if code != 0 || !strings.Contains(out, "fresh answer") {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	last := srv.Requests()[1]
	// The question the kill left unanswered is kept on disk but not sent
	// again, and stderr says so (issue 11: it used to be merged into the
	// new one).
	if last.Shape() != "system user" || last.Messages[1].Text() != "second question" || !strings.Contains(errOut, "got no answer") {
		t.Fatalf("continued with %s %q\n%s", last.Shape(), last.Messages[1].Text(), errOut)
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}
