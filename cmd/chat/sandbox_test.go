package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Secrets put in chat's environment; none may reach the model.
var planted = map[string]string{
	"GITHUB_TOKEN":          "ghp-planted-github-token",
	"AWS_SECRET_ACCESS_KEY": "aws-planted-secret-key",
	"MY_DB_PASSWORD":        "planted-db-password",
}

// eachMode runs f in the default sandbox (where the kernel has one) and
// with it off.
func eachMode(t *testing.T, f func(t *testing.T, mode string)) {
	for _, mode := range []string{"workspace-write", "off"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			if mode != "off" {
				needSandbox(t)
			}
			f(t, mode)
		})
	}
}

// readUntil reads r until what was read holds want; it fails when r ends
// first.
func readUntil(t *testing.T, r io.Reader, want string) string {
	t.Helper()
	buf := make([]byte, 4096)
	seen := ""
	for !strings.Contains(seen, want) {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("the output ended before %q: %q", want, seen)
		}
		seen += string(buf[:n])
	}
	return seen
}

func needSandbox(t *testing.T) {
	t.Helper()
	if s := sandbox.Probe(); s.ABI == 0 {
		t.Skipf("no Landlock on this kernel (%s): the sandbox cannot be tested here", s.Why)
	}
	if !namespacedBox() {
		t.Skip("this user cannot make namespaces here: the box is Landlock alone (no hidden folders, no new top-level entries), which these tests do not expect")
	}
}

var (
	namespacesOnce sync.Once
	namespacesOK   bool
)

// namespacedBox starts a box once to see whether it gets its namespaces.
func namespacedBox() bool {
	namespacesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chat-probe")
		if err != nil {
			return
		}
		defer os.RemoveAll(dir)
		b, err := sandbox.Start(sandbox.Spec{Mode: sandbox.WorkspaceWrite, Workdir: dir})
		if err != nil {
			return
		}
		namespacesOK = b.Namespaces()
		b.Close()
	})
	return namespacesOK
}

// boxedWorld is a home with credentials, a working directory that is a git
// repository, a place outside both, its own temporary directory and a TCP
// listener on loopback that records connections.
type boxedWorld struct {
	home, dir, outside, tmp string
	port                    int
	connections             chan struct{}
	gitConfig               string // what .git/config must still hold
}

func newBoxedWorld(t *testing.T) *boxedWorld {
	t.Helper()
	base := t.TempDir()
	w := &boxedWorld{home: filepath.Join(base, "home"), dir: filepath.Join(base, "work"), outside: filepath.Join(base, "outside"),
		tmp: filepath.Join(base, "tmp"), connections: make(chan struct{}, 64)}
	for _, d := range []string{w.dir + "/.git/hooks", w.outside, w.tmp, w.home + "/.ssh"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.gitConfig = "[core]\n\tbare = false\n"
	_ = os.WriteFile(filepath.Join(w.dir, ".git", "config"), []byte(w.gitConfig), 0o644)
	_ = os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte("PLANTED-PRIVATE-KEY"), 0o600)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	w.port = ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			w.connections <- struct{}{}
			c.Close()
		}
	}()
	return w
}

// chat is the binary in w with the planted secrets in its environment.
func (w *boxedWorld) chat(t *testing.T, srv *oaitest.Server, args ...string) *exec.Cmd {
	cmd := inHome(t, command(t, srv, args...), w.home, w.dir)
	cmd.Env = append(cmd.Env, "TMPDIR="+w.tmp)
	for k, v := range planted {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// attacks are the commands an injected prompt would send: each tries to
// write outside, into .git, to connect out, or to read a secret.
func (w *boxedWorld) attacks() []string {
	out := filepath.Join(w.outside, "pwned")
	return []string{
		"echo x > " + out,
		"cp /etc/hostname " + out,
		"ln -s " + w.outside + " escape && echo x > escape/pwned2",
		"echo 'echo pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
		"printf '[core]\\n\\tfsmonitor = touch " + out + "\\n' >> .git/config",
		"mv .git .git-old; mkdir -p .git/hooks && echo x > .git/hooks/post-checkout",
		"rm -rf .git",
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3", w.port),
		fmt.Sprintf("curl -s -m 3 http://127.0.0.1:%d/ || python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %d), 3)'", w.port, w.port),
		"cat /proc/self/environ | tr '\\0' '\\n'",
		"env",
		"cat /proc/$PPID/environ; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null",
		"cat ~/.ssh/id_rsa",
		"kill -9 $PPID; kill -9 -1",
	}
}

// harmed says what an attack achieved, "" when nothing.
func (w *boxedWorld) harmed(t *testing.T, srv *oaitest.Server) []string {
	t.Helper()
	var harm []string
	for _, p := range []string{filepath.Join(w.outside, "pwned"), filepath.Join(w.outside, "pwned2"), filepath.Join(w.dir, ".git", "hooks", "pre-commit"),
		filepath.Join(w.dir, ".git", "hooks", "post-checkout")} {
		if _, err := os.Stat(p); err == nil {
			harm = append(harm, "wrote "+p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, ".git", "config")); string(b) != w.gitConfig {
		harm = append(harm, fmt.Sprintf(".git/config is now %q", b))
	}
	select {
	case <-w.connections:
		harm = append(harm, "a connection reached 127.0.0.1")
	default:
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			text := m.Text()
			for k, v := range planted {
				if strings.Contains(text, v) {
					harm = append(harm, k+" reached the model")
				}
			}
			if strings.Contains(text, "sk-test-secret") {
				harm = append(harm, "the API key reached the model")
			}
			if strings.Contains(text, "PLANTED-PRIVATE-KEY") {
				harm = append(harm, "~/.ssh/id_rsa reached the model")
			}
		}
	}
	return harm
}

// shellCalls answers each question with every line as a run_shell call,
// then "done".
func shellCalls(lines []string, extra map[string]any) func(oaitest.Request) oaitest.Reply {
	return func(req oaitest.Request) oaitest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return oaitest.Answer{Text: "done"}
		}
		var calls []oaitest.Call
		for i, line := range lines {
			args := map[string]any{"command": line}
			for k, v := range extra {
				args[k] = v
			}
			b, _ := json.Marshal(args)
			calls = append(calls, oaitest.Call{ID: fmt.Sprintf("a%d-%d", req.Index, i), Name: "run_shell", Args: string(b)})
		}
		return oaitest.Answer{Calls: calls}
	}
}

// TestSandboxHoldsInPrintMode: the attacks run without asking in the
// default sandbox (with and without --yes) and do no harm; plain work in
// the working directory still happens.
func TestSandboxHoldsInPrintMode(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	for _, yes := range []bool{false, true} {
		t.Run(fmt.Sprintf("yes=%v", yes), func(t *testing.T) {
			t.Parallel()
			w := newBoxedWorld(t)
			srv := oaitest.New(t)
			srv.SetFallback(shellCalls(append(w.attacks(), "echo work > made-inside.txt"), nil))
			args := []string{"-p", "go"}
			if yes {
				// --json too: the box in force is an event there.
				args = append(args, "--yes", "--json")
			}
			out, errOut, code := run(t, w.chat(t, srv, args...))
			if yes && !regexp.MustCompile(`"notice".*sandbox workspace-write \((bubblewrap|namespaces) \+ seccomp \+ Landlock\)`).MatchString(out) {
				t.Errorf("--json does not say which box is in force:\n%s", out)
			}
			if code != 0 || !strings.Contains(out, "done") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if strings.Contains(errOut, "needs the user's approval") {
				t.Errorf("a command in the sandbox asked:\n%s", errOut)
			}
			if harm := w.harmed(t, srv); len(harm) > 0 {
				t.Errorf("the sandbox let through:\n%s\n%s", strings.Join(harm, "\n"), errOut)
			}
			if b, _ := os.ReadFile(filepath.Join(w.dir, "made-inside.txt")); string(b) != "work\n" {
				t.Errorf("plain work in the working directory failed:\n%s", errOut)
			}
			if len(srv.Rejected()) > 0 {
				t.Fatal(srv.Rejected())
			}
		})
	}
}

// TestLeavingTheBoxIsThePersonsCall: a command the model asks to run
// outside the sandbox is refused in print mode, with --yes too; only the
// person (or --sandbox off) lets it out.
func TestLeavingTheBoxIsThePersonsCall(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	w := newBoxedWorld(t)
	srv := oaitest.New(t)
	srv.SetFallback(shellCalls([]string{"echo x > " + filepath.Join(w.outside, "pwned")}, map[string]any{"unsandboxed": true, "justification": "I need it"}))
	for _, args := range [][]string{{"-p", "go"}, {"--yes", "-p", "go"}} {
		_, errOut, code := run(t, w.chat(t, srv, args...))
		if code != 0 || !strings.Contains(errOut, "needs the user's approval") {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	if harm := w.harmed(t, srv); len(harm) > 0 {
		t.Fatalf("%v", harm)
	}
	// The person's own choice: --sandbox off with --yes runs it.
	if _, errOut, _ := run(t, w.chat(t, srv, "--sandbox", "off", "--yes", "-p", "go")); !fileExists(filepath.Join(w.outside, "pwned")) {
		t.Fatalf("--sandbox off --yes did not run it:\n%s", errOut)
	}
}

// TestSecretsNeverReachAChild: with the sandbox off and --yes, commands
// and an MCP server that dump their environment hand no secret to the
// model.
func TestSecretsNeverReachAChild(t *testing.T) {
	t.Parallel()
	w := newBoxedWorld(t)
	writeConfig(t, w.home, fmt.Sprintf("[mcp.t]\ncommand = %q\nenv = { %s = \"1\" }\nallow = [\"get_env\"]\n", os.Args[0], mcptest.EnvServe))
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role != "tool":
			return oaitest.Answer{Calls: []oaitest.Call{
				{ID: "e1", Name: "run_shell", Args: `{"command":"env; cat /proc/self/environ; cat /proc/$PPID/environ"}`},
				{ID: "c1", Name: "mcp_connect", Args: `{"name":"t"}`}}}
		case strings.HasPrefix(last.ToolCallID, "c"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "g1", Name: "t__get_env", Args: `{}`}}}
		}
		return oaitest.Answer{Text: "done"}
	})
	out, errOut, code := run(t, w.chat(t, srv, "--sandbox", "off", "--yes", "-p", "dump"))
	if code != 0 || !strings.Contains(out, "done") || !strings.Contains(errOut, "t__get_env") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if harm := w.harmed(t, srv); len(harm) > 0 {
		t.Fatalf("%v\n%s", harm, errOut)
	}
	// The children still had a working environment.
	reqs := srv.Requests()
	if dump := lastToolText(reqs[len(reqs)-1].Messages); !strings.Contains(dump, "PATH=") {
		t.Fatalf("the MCP server had no PATH: %q", dump)
	}
}

// TestChildrenDieWithChat: after kill -9 of chat, what its command
// started is gone, in the sandbox and with it off.
func TestChildrenDieWithChat(t *testing.T) {
	t.Parallel()
	eachMode(t, func(t *testing.T, mode string) {
		if mode == "off" && os.Getuid() != 0 {
			t.Skip("without root, --sandbox off runs commands outside a PID namespace (a user namespace would break sudo)")
		}
		w := newBoxedWorld(t)
		marker := fmt.Sprintf("chat-test-sleeper-%d-%s", os.Getpid(), mode)
		srv := oaitest.New(t)
		srv.SetFallback(shellCalls([]string{fmt.Sprintf("(%s) & (%s) & sleep 302; echo end", execAs(marker, "sleep 300"), execAs(marker+"-2", "sleep 301"))}, nil))
		cmd := w.chat(t, srv, "--sandbox", mode, "--yes", "-p", "go")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForProcess(t, marker+"-2", true)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		waitForProcess(t, marker, false)
	})
}

func lastToolText(msgs []oaitest.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Text()
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestTUISandbox: in the REPL a command runs in the box without a prompt
// and cannot write outside; /tools says where commands run; a request to
// leave the box is a prompt that says so, and only "y" lets it out.
func TestTUISandbox(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	w := newBoxedWorld(t)
	outside, granted := filepath.Join(w.outside, "pwned"), filepath.Join(w.outside, "granted")
	leave := func(id string) oaitest.Answer {
		return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell",
			Args: fmt.Sprintf(`{"command":"touch %s","unsandboxed":true,"justification":"it must write outside"}`, granted)}}}
	}
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: fmt.Sprintf(`{"command":"touch inside.txt; echo x > %s"}`, outside)}}},
		oaitest.Answer{Text: "first done"},
		leave("s2"), oaitest.Answer{Text: "second done"},
		leave("s3"), oaitest.Answer{Text: "third done"})
	tm := startTermEnv(t, srv, "TMPDIR="+w.tmp)
	tm.ask("go")
	tm.waitFor("first done", 10*time.Second)
	if !fileExists(filepath.Join(tm.dir, "inside.txt")) || fileExists(outside) {
		t.Fatalf("inside %v, outside %v", fileExists(filepath.Join(tm.dir, "inside.txt")), fileExists(outside))
	}
	tm.ask("/tools")
	tm.waitFor("sandbox workspace-write", 5*time.Second)
	tm.ask("leave")
	tm.waitFor("it must write outside", 10*time.Second)
	tm.answer("n")
	tm.waitFor("second done", 10*time.Second)
	if fileExists(granted) {
		t.Fatal("ran outside the box after a no")
	}
	tm.ask("leave again")
	tm.waitFor("it must write outside", 10*time.Second)
	tm.answer("y")
	tm.waitFor("third done", 10*time.Second)
	if !fileExists(granted) {
		t.Fatal("the person's yes did not let it out")
	}
}
