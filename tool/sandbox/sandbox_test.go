//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	ServeIfAsked() // this test binary, started as a box
	seccompOnlyIfAsked()
	os.Exit(m.Run())
}

func needLandlock(t *testing.T) {
	t.Helper()
	if s := Probe(); s.ABI == 0 {
		t.Skipf("no sandbox here: %s", s.Why)
	}
}

// shell runs a line in b and returns its output and exit status.
func shell(t *testing.T, b *Box, dir, line string) (string, int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var out bytes.Buffer
	code, err := b.Run(context.Background(), []string{bash, "-c", line}, []string{"PATH=" + os.Getenv("PATH")}, dir, &out, time.Second)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return out.String(), code
}

func startBox(t *testing.T, spec Spec) *Box {
	t.Helper()
	b, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// TestTheBoxHolds attacks a workspace-write box: each line must fail to
// do what it tries, and the plain work must still be possible.
func TestTheBoxHolds(t *testing.T) {
	needLandlock(t)
	// The temporary directory is writable: the box gets one of its own.
	base := t.TempDir()
	home, work, outside := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "home", "outside")
	_ = os.MkdirAll(work, 0o755)
	_ = os.MkdirAll(filepath.Join(work, ".git", "hooks"), 0o755)
	_ = os.WriteFile(filepath.Join(work, ".git", "config"), []byte("[core]\n"), 0o644)
	_ = os.MkdirAll(outside, 0o755)
	_ = os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	_ = os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE-KEY"), 0o600)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	b := startBox(t, Spec{Mode: WorkspaceWrite, Workdir: work, Hidden: DefaultHidden(home), TempDir: filepath.Join(base, "tmp")})
	if !b.Namespaces() {
		t.Skipf("no namespaces for this user here (%s): the Landlock-only box hides no folders", b.Notes())
	}

	if out, code := shell(t, b, work, "echo made > inside.txt && mkdir -p sub/deep && mv inside.txt sub/deep/ && cat sub/deep/inside.txt"); code != 0 || !strings.Contains(out, "made") {
		t.Fatalf("plain work failed: %d %s", code, out)
	}
	attacks := []string{
		"echo x > " + filepath.Join(outside, "pwned"),
		"echo x > " + filepath.Join(work, ".git", "hooks", "pre-commit"),
		"echo '[core] fsmonitor = touch " + filepath.Join(outside, "pwned") + "' >> " + filepath.Join(work, ".git", "config"),
		"mv .git .git-old && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
		"rm -rf .git",
		"ln -s " + filepath.Join(outside) + " link && echo x > link/pwned",
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3", port),
		fmt.Sprintf("python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %d))'", port),
		"cat " + filepath.Join(home, ".ssh", "id_rsa"),
		"cat /proc/$PPID/environ; for p in /proc/[0-9]*; do cat $p/environ; done",
		"ls -l /proc/self/fd/ > " + filepath.Join(work, "fds.txt"),
	}
	for _, line := range attacks {
		out, _ := shell(t, b, work, line)
		if strings.Contains(out, "PRIVATE-KEY") || strings.Contains(out, "CHAT_SANDBOX_TEST_SECRET") {
			t.Errorf("%s: leaked: %s", line, out)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Error("a file was written outside the working directory")
	}
	if _, err := os.Stat(filepath.Join(work, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a git hook was written")
	}
	if cfg, _ := os.ReadFile(filepath.Join(work, ".git", "config")); string(cfg) != "[core]\n" {
		t.Errorf(".git/config changed: %q", cfg)
	}
	if _, err := os.Stat(filepath.Join(work, ".git")); err != nil {
		t.Error(".git was removed")
	}
	select {
	case <-accepted:
		t.Error("a connection reached a listener outside the box")
	default:
	}
	// A command holds its output and /dev/null, never the box's control socket.
	if fds, _ := os.ReadFile(filepath.Join(work, "fds.txt")); strings.Contains(string(fds), "socket:") {
		t.Errorf("a command inherited a socket of the box:\n%s", fds)
	}
}

func TestReadOnlyWritesNothing(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	b := startBox(t, Spec{Mode: ReadOnly, Workdir: work})
	if _, code := shell(t, b, work, "echo x > f"); code == 0 {
		t.Error("read-only: a write in the working directory succeeded")
	}
	if out, code := shell(t, b, work, "ls / >/dev/null && echo ok"); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("read-only: reading failed: %s", out)
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	needLandlock(t)
	work := t.TempDir()
	b := startBox(t, Spec{Mode: WorkspaceWrite, Workdir: work})
	bash, _ := exec.LookPath("bash")
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := b.Run(ctx, []string{bash, "-c", ": > started; sleep 30 & sleep 30; echo late > late.txt"}, nil, work, &out, time.Second)
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(work, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	cancel()
	err := <-done
	if err != context.Canceled {
		t.Fatalf("cancelled run: %v", err)
	}
	// The box still works after a cancel.
	if out, code := shell(t, b, work, "echo again"); code != 0 || !strings.Contains(out, "again") {
		t.Fatalf("after a cancel: %d %q", code, out)
	}
}

// TestLandlockOnlyBox: where namespaces cannot be made, the box is
// Landlock alone: no writes outside or into .git, no TCP out, and the
// working directory's existing entries stay writable.
func TestLandlockOnlyBox(t *testing.T) {
	needLandlock(t)
	base := t.TempDir()
	work, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
	for _, d := range []string{work + "/.git/hooks", work + "/src", outside} {
		_ = os.MkdirAll(d, 0o755)
	}
	_ = os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n"), 0o644)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	b, err := Start(Spec{Mode: WorkspaceWrite, Workdir: work, TempDir: filepath.Join(base, "tmp"), NoNamespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if out, code := shell(t, b, work, "echo more >> main.go && echo x > src/new.go && cat main.go"); code != 0 || !strings.Contains(out, "more") {
		t.Fatalf("existing entries are not writable: %d %s", code, out)
	}
	shell(t, b, work, "echo x > "+filepath.Join(outside, "pwned")+"; echo x > .git/hooks/pre-commit; exec 3<>/dev/tcp/127.0.0.1/"+fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	for _, p := range []string{filepath.Join(outside, "pwned"), filepath.Join(work, ".git", "hooks", "pre-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("wrote %s", p)
		}
	}
	select {
	case <-accepted:
		t.Error("a TCP connection left the Landlock-only box")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestGoTestRunsInTheBox: go test builds and runs in the box, its cache
// in the box's own folder; nothing is written in the person's cache.
func TestGoTestRunsInTheBox(t *testing.T) {
	needLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go")
	}
	work := t.TempDir()
	_ = os.WriteFile(filepath.Join(work, "go.mod"), []byte("module boxed\n\ngo 1.22\n"), 0o644)
	_ = os.WriteFile(filepath.Join(work, "x_test.go"), []byte("package boxed\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"), 0o644)
	home := t.TempDir()
	b := startBox(t, Spec{Mode: WorkspaceWrite, Workdir: work, TempDir: filepath.Join(t.TempDir(), "tmp")})
	var out bytes.Buffer
	code, err := b.Run(context.Background(), []string{goBin, "test", "-count=1", "."}, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}, work, &out, time.Second)
	if err != nil || code != 0 || !strings.Contains(out.String(), "ok") {
		t.Fatalf("go test in the box: %d %v\n%s", code, err, out.String())
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("go test wrote in the home: %v", entries)
	}
}
