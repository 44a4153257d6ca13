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

	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
)

// mcpModel plays a model that connects the server, calls its echo tool and
// reports what it said.
func mcpModel(t *testing.T, server string) *oaitest.Server {
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role != "tool":
			if !strings.Contains(req.Messages[0].Text(), "- "+server+": test tools") {
				return oaitest.Answer{Text: "the server was not advertised"}
			}
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "mcp_connect", Args: `{"name":"` + server + `"}`}}}
		case strings.Contains(last.Text(), "is connected"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "c2", Name: server + "__echo", Args: `{"text":"hello from the model"}`}}}
		}
		return oaitest.Answer{Text: "the server said: " + last.Text()}
	})
	return srv
}

// TestMCPStdioInTheREPL: `chat mcp add` configures a stdio server; in the
// REPL the model connects it lazily (nothing runs before), its tool call
// asks for approval and runs when approved; /mcp shows it connected; after
// exit the server process is gone. `chat mcp rm` removes it.
func TestMCPStdioInTheREPL(t *testing.T) {
	t.Parallel()
	srv := mcpModel(t, "t")
	pidFile := filepath.Join(t.TempDir(), "pid")
	home := t.TempDir()
	cfg := filepath.Join(home, "c", "chat", "config.toml")
	// What was in the file before stays as it was, comments included.
	before := "# my settings\nmax_steps = 8 # keep it short\n\n[tools]\nallow_shell = [\"go test\"]\n"
	_ = os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	add := chatIn(t, srv, home, "--config", cfg, "mcp", "add", "t", "--command", os.Args[0], "--description", "test tools",
		"--env", mcptest.EnvServe+"=1", "--env", mcptest.EnvPIDFile+"="+pidFile)
	if !strings.Contains(add, "added MCP server t") {
		t.Fatal(add)
	}
	// A second server: the file must stay valid TOML.
	chatIn(t, srv, home, "--config", cfg, "mcp", "add", "other", "--url", "http://127.0.0.1:1/mcp")
	if list := chatIn(t, srv, home, "--config", cfg, "mcp", "list", "--offline"); !strings.Contains(list, "when asked") || strings.Contains(list, pidFile) {
		t.Fatalf("list (env values must not show):\n%s", list)
	}
	text, _ := os.ReadFile(cfg)
	tm := startTermOpts(t, srv, termOpts{config: string(text)})
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(pidFile); err == nil {
		t.Fatal("the server started before the model asked for it")
	}
	tm.ask("use the test server")
	tm.waitFor("call echo on the MCP server t", 10*time.Second)
	tm.answer("y")
	tm.waitFor("the server said: echo: hello from the model", 10*time.Second)
	pid := mcptest.PID(t, pidFile)
	tm.ask("/mcp")
	tm.waitFor("t__echo, t__fail, t__get_env, t__wait", 5*time.Second)
	tm.keys("C-d")
	tm.exitStatus(10 * time.Second)
	mcptest.WaitGone(t, pid)

	for _, name := range []string{"t", "other"} {
		if rm := chatIn(t, srv, home, "--config", cfg, "mcp", "rm", name); !strings.Contains(rm, "removed") {
			t.Fatal(rm)
		}
	}
	after, _ := os.ReadFile(cfg)
	if strings.TrimRight(string(after), "\n") != strings.TrimRight(before, "\n") {
		t.Fatalf("mcp add then rm changed the rest of the file:\n%s", after)
	}
	if fi, _ := os.Stat(cfg); fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file mode %v", fi.Mode().Perm())
	}
	if list := chatIn(t, srv, home, "--config", cfg, "mcp", "list", "--offline"); !strings.Contains(list, "no MCP servers") {
		t.Fatal(list)
	}
}

// TestMCPHTTPInPrintMode: a server at a URL, its tool pre-approved with
// allow, connected and called in print mode.
func TestMCPHTTPInPrintMode(t *testing.T) {
	t.Parallel()
	web := mcptest.ServeHTTP(nil)
	defer web.Close()
	srv := mcpModel(t, "web")
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, fmt.Sprintf("[mcp.web]\nurl = %q\ndescription = \"test tools\"\nallow = [\"echo\"]\n", web.URL))
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "use it"), home, dir))
	if code != 0 || !strings.Contains(out, "the server said: echo: hello from the model") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestMCPServerThatFails: a server that cannot start is reported with its
// name and reason; the turn and the session go on.
func TestMCPServerThatFails(t *testing.T) {
	t.Parallel()
	srv := mcpModel(t, "gone")
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, "[mcp.gone]\ncommand = \"/nonexistent/mcp-server\"\ndescription = \"test tools\"\n")
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "use it"), home, dir))
	if code != 0 || !strings.Contains(out, "MCP server gone: cannot start or reach it: fork/exec /nonexistent/mcp-server") || !strings.Contains(errOut, "✗ MCP server gone") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// chatIn runs a chat subcommand with HOME at home and returns its stdout.
func chatIn(t *testing.T, srv *oaitest.Server, home string, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, inHome(t, command(t, srv, args...), home, t.TempDir()))
	if code != 0 {
		t.Fatalf("chat %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

// TestMCPServerStopsWithChat: chat ended by SIGTERM, by a second Ctrl+C,
// or killed outright while a server's tool runs leaves no server process.
func TestMCPServerStopsWithChat(t *testing.T) {
	t.Parallel()
	for _, sigs := range [][]syscall.Signal{{syscall.SIGTERM}, {syscall.SIGINT, syscall.SIGINT}, {syscall.SIGKILL}} {
		t.Run(fmt.Sprint(sigs), func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t)
			srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
				if req.Messages[len(req.Messages)-1].Role != "tool" {
					return oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "mcp_connect", Args: `{"name":"t"}`}}}
				}
				return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprint("w", req.Index), Name: "t__wait", Args: `{}`}}}
			})
			home, dir := t.TempDir(), t.TempDir()
			pidFile := filepath.Join(t.TempDir(), "pid")
			writeConfig(t, home, fmt.Sprintf("[mcp.t]\ncommand = %q\nenv = { %s = \"1\", %s = %q }\nallow = [\"wait\"]\n",
				os.Args[0], mcptest.EnvServe, mcptest.EnvPIDFile, pidFile))
			cmd := inHome(t, command(t, srv, "-p", "wait on the server"), home, dir)
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			readUntil(t, stderr, "→ t__wait")
			pid := mcptest.PID(t, pidFile)
			for _, s := range sigs {
				_ = cmd.Process.Signal(s)
				time.Sleep(100 * time.Millisecond)
			}
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			_ = cmd.Wait()
			mcptest.WaitGone(t, pid)
		})
	}
}

// TestMCPEagerServer: eager = true connects at start, so the model can
// call the server's tools at once, without mcp_connect.
func TestMCPEagerServer(t *testing.T) {
	t.Parallel()
	web := mcptest.ServeHTTP(nil)
	defer web.Close()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return oaitest.Answer{Text: "the server said: " + last.Text()}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "e1", Name: "web__echo", Args: `{"text":"at once"}`}}}
	})
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, fmt.Sprintf("[mcp.web]\nurl = %q\neager = true\nallow = [\"echo\"]\n", web.URL))
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "use it"), home, dir))
	if code != 0 || !strings.Contains(out, "the server said: echo: at once") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if names := srv.Requests()[0].ToolNames(); !strings.Contains(strings.Join(names, ","), "web__echo") {
		t.Fatalf("the first request did not offer the eager server's tools: %v", names)
	}
}

// TestTUIFirstFrameDoesNotWaitForMCP: an eager server that takes its time
// to start does not hold the REPL's first frame (it did, up to 30 s); one
// that fails says why, in the transcript.
func TestTUIFirstFrameDoesNotWaitForMCP(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "hello while it starts"})
	tm := startTermOpts(t, srv, termOpts{config: "[mcp.slow]\ncommand = \"sh\"\nargs = [\"-c\", \"exec sleep 60\"]\neager = true\n" +
		"[mcp.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'fatal: no token' >&2; exit 3\"]\neager = true\n"})
	tm.ask("hi")
	tm.waitFor("hello while it starts", 10*time.Second)
	tm.waitFor("fatal: no token", 10*time.Second)
}
