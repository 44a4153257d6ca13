package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

var chatBin string

// coverDir, from CHAT_COVERDIR, is where the e2e binary writes coverage.
var coverDir = os.Getenv("CHAT_COVERDIR")

// coverEnv is the environment entry that makes the binary write it.
func coverEnv() []string {
	if coverDir == "" {
		return nil
	}
	return []string{"GOCOVERDIR=" + coverDir}
}

func TestMain(m *testing.M) {
	mcptest.ServeStdioIfAsked() // this test binary, started by chat as an MCP server
	sandbox.ServeIfAsked()      // or as a box, by needSandbox's probe
	dir, err := os.MkdirTemp("", "chat-bin")
	if err != nil {
		panic(err)
	}
	chatBin = filepath.Join(dir, "chat")
	build := []string{"build", "-o", chatBin}
	// make cover: the binary the end-to-end tests run records coverage
	// too, merged with the unit tests' (see the Makefile).
	if coverDir != "" {
		build = append(build, "-cover", "-coverpkg=github.com/chatrepl/chat/...")
	}
	// As make build does: without cgo (see the Makefile).
	gobuild := exec.Command("go", append(build, ".")...)
	gobuild.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := gobuild.CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command runs the built binary with a clean environment pointed at srv.
func command(t testing.TB, srv *oaitest.Server, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(chatBin, args...)
	home := t.TempDir()
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}, coverEnv()...)
	if srv != nil {
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret")
	}
	return cmd
}

// runDeadline bounds one run of the binary: a looping regression fails
// the test with what it printed, rather than hanging the suite for ten
// minutes (a loaded machine is slow, not this slow).
const runDeadline = 3 * time.Minute

func run(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	for busyUntil := time.Now().Add(time.Minute); ; {
		err := cmd.Start()
		if err == nil {
			break
		}
		// A binary just copied for another user (asuser) can be busy for a
		// moment: a fork of a parallel test still holds the copy's write
		// descriptor until it execs (Go issue 22315).
		if !errors.Is(err, syscall.ETXTBSY) || time.Now().After(busyUntil) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		again := exec.Command(cmd.Path, cmd.Args[1:]...)
		again.Dir, again.Env, again.Stdin, again.SysProcAttr = cmd.Dir, cmd.Env, cmd.Stdin, cmd.SysProcAttr
		again.Stdout, again.Stderr = &o, &e
		cmd = again
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(runDeadline):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish within %s; it printed:\n%s\n%s", cmd.Args, runDeadline, o.String(), e.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestPrintMode(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		out, err string
	}{
		{"plain answer", []string{"-p", "hello"}, "", 0, "Hello! I am the **scripted demo model**", ""},
		{"tool use", []string{"-p", "which files are here?"}, "", 0, "I listed the working directory", "→ list_files"},
		{"step budget", []string{"--max-steps", "2", "-p", "loop please"}, "", 0, "**Synthesized answer**", "used its 2 steps"},
		{"piped stdin", nil, "hello from a pipe\n", 0, "scripted demo model", ""},
		{"no stream", []string{"--no-stream", "-p", "hello"}, "", 0, "scripted demo model", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := command(t, srv, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			out, errOut, code := run(t, cmd)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.HasSuffix(out, "\n") {
				t.Fatalf("output does not end with a newline: %q", out)
			}
		})
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatalf("strict server refused: %v", rej)
	}
}

func TestPrintModeJSON(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	out, _, code := run(t, command(t, srv, "--json", "-p", "what files are here?"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	want := "user_turn assistant_delta assistant usage tool_call tool_result assistant_delta assistant usage turn_done"
	if strings.Join(types, " ") != want {
		t.Fatalf("events %s", strings.Join(types, " "))
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	t.Parallel()
	t.Run("nothing configured", func(t *testing.T) {
		t.Parallel()
		_, errOut, code := run(t, command(t, nil, "-p", "hi"))
		if code != 1 || !strings.Contains(errOut, "no model endpoint is configured") || !strings.Contains(errOut, "OPENAI_BASE_URL=http://localhost:11434/v1") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		t.Parallel()
		srv := oaitest.New(t)
		srv.SetAPIKey("the-right-one")
		_, errOut, code := run(t, command(t, srv, "-p", "hi"))
		if code != 1 || !strings.Contains(errOut, "401 from") || strings.Contains(errOut, "sk-test-secret") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("config show hides the key", func(t *testing.T) {
		t.Parallel()
		out, _, code := run(t, command(t, oaitest.New(t), "config", "show"))
		if code != 0 || strings.Contains(out, "sk-test-secret") || !strings.Contains(out, "(set, hidden)") || !strings.Contains(out, "env OPENAI_BASE_URL") {
			t.Fatalf("exit %d: %s", code, out)
		}
	})
	t.Run("empty prompt", func(t *testing.T) {
		t.Parallel()
		_, errOut, code := run(t, command(t, oaitest.New(t)))
		if code != 1 || !strings.Contains(errOut, "nothing to ask") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

// TestSIGINTDuringStream interrupts print mode mid-answer: the process
// exits 130, the server sees the connection closed, and what was shown
// ends with a newline.
func TestSIGINTDuringStream(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "first words, then a long silence", Piece: 12, Gate: gate, GateAfter: 1})
	cmd := command(t, srv, "-p", "talk")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 12)
	if _, err := io.ReadFull(stdout, first); err != nil || string(first) != "first words," {
		t.Fatalf("first bytes %q %v", first, err)
	}
	<-gate.Entered()
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(stdout)
	err = cmd.Wait()
	exited := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v", err)
	}
	if string(rest) != "\n" {
		t.Fatalf("after the interrupt stdout got %q", rest)
	}
	wantHangup(t, srv, "after SIGINT")
	t.Logf("SIGINT → exit took %s (make bench measures this properly)", exited)
}

func TestModelsAndCompletion(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetModels("alpha", "beta")
	out, errOut, code := run(t, command(t, srv, "models"))
	if code != 0 || out != "alpha\nbeta\n" {
		t.Fatalf("%d %q %s", code, out, errOut)
	}
	out, _, code = run(t, command(t, srv, "completion", "bash"))
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Fatal(code)
	}
}

// TestSIGINTDuringStartUp: a SIGINT while an eager MCP server is still
// starting ends the run with 130 at once: nothing is asked of the model,
// nothing printed, and the server process is stopped.
func TestSIGINTDuringStartUp(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "an answer nobody asked for"})
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := command(t, srv, "-p", "hello")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), fmt.Sprintf("[mcp.slow]\ncommand = \"sh\"\nargs = [\"-c\", \"echo $$ > %s; exec sleep 60\"]\neager = true\n", pidFile))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !fileExists(pidFile); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server never started: %s", errOut.String())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || out.Len() != 0 || srv.RequestCount() != 0 {
		t.Fatalf("exit %v, %d requests\nstdout %q\nstderr %s", err, srv.RequestCount(), out.String(), errOut.String())
	}
	b, _ := os.ReadFile(pidFile)
	var pid int
	fmt.Sscan(string(b), &pid)
	for deadline := time.Now().Add(5 * time.Second); pid > 0 && syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the MCP server %d outlived chat", pid)
		}
	}
}
