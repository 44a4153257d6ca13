package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// world is one person's machine for in-process runs: a home, a working
// directory and an endpoint; each run is the real command, not the binary.
type world struct {
	t        *testing.T
	env      map[string]string
	home, wd string
}

func newWorld(t *testing.T, srv *oaitest.Server) *world {
	home, wd := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME": filepath.Join(home, ".local", "share"), "XDG_STATE_HOME": filepath.Join(home, ".local", "state"),
		"PATH": os.Getenv("PATH")}
	if srv != nil {
		env["OPENAI_BASE_URL"], env["CHAT_MODEL"], env["OPENAI_API_KEY"] = srv.BaseURL(), "scripted-model", "sk-test-secret"
	}
	return &world{t: t, env: env, home: home, wd: wd}
}

// run runs chat with args in-process (stdin not a terminal: print mode
// unless a subcommand is named) and returns what it printed and its
// exit status, as main would make it.
func (w *world) run(stdin string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	d, out, errOut := w.deps()
	d.stdin = strings.NewReader(stdin)
	d.stdinIsTTY = func() bool { return false }
	d.stdinHasData = func() bool { return stdin != "" }
	cmd := newRootCmd(d, nil)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case err != nil:
		errOut.WriteString("chat: " + err.Error() + "\n")
		code = 1
	}
	return out.String(), errOut.String(), code
}

// deps is the world's machine for one in-process run: its home and
// working directory, its environment, no signals.
func (w *world) deps() (deps, *bytes.Buffer, *bytes.Buffer) {
	d, out, errOut := testDeps(w.t, w.env)
	d.workdir = func() (string, error) { return w.wd, nil }
	d.signals = func() (<-chan os.Signal, func()) { return make(chan os.Signal), func() {} }
	d.environ = func() []string {
		var e []string
		for k, v := range w.env {
			e = append(e, k+"="+v)
		}
		return e
	}
	return d, out, errOut
}

func (w *world) file(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.wd, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// TestCommandsInProcess runs the command lines a person uses, in-process,
// against the scripted server: print mode with tools, sessions, agents,
// config, MCP, hooks, checkpoints and rewind. Each step checks what the
// person would see.
func TestCommandsInProcess(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	w := newWorld(t, srv)
	w.file("notes.txt", "buy milk\n")
	w.file("AGENTS.md", "Run make test before a change is done.\n")
	writeConfig(t, w.home, `
max_steps = 8
[agents.reviewer]
description = "reviews"
instructions = "You review."
tools = ["read_file", "list_files"]
[[hooks.PreToolUse]]
matcher = "list_files"
command = "true"
[budget]
max_tokens = 1000000
`)
	steps := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string // in stdout, or in stderr when errOut is set
		inErr bool
	}{
		{"print", "", []string{"-p", "hello"}, 0, "scripted demo model", false},
		{"tools", "", []string{"-v", "-p", "which files are here?"}, 0, "→ list_files", true},
		{"piped", "from a pipe\n", []string{"--json"}, 0, `"type":"assistant"`, false},
		{"continue", "", []string{"--continue", "-p", "and then?"}, 0, "scripted demo model", false},
		{"budget", "", []string{"--max-steps", "1", "-p", "loop please"}, 0, "Synthesized answer", false},
		{"persona", "", []string{"--agent", "reviewer", "-p", "hello"}, 0, "scripted demo model", false},
		{"sessions list", "", []string{"sessions", "list"}, 0, "COST", false},
		{"sessions list json", "", []string{"sessions", "list", "--json"}, 0, `"messages"`, false},
		{"agents list", "", []string{"agents", "list"}, 0, "reviewer", false},
		{"agents show", "", []string{"agents", "show", "reviewer"}, 0, "You review.", false},
		{"agents export", "", []string{"agents", "export", "reviewer"}, 0, `"schema_version": 2`, false},
		{"config show", "", []string{"config", "show"}, 0, "max_steps", false},
		{"config path", "", []string{"config", "path"}, 0, "config.toml", false},
		{"mcp list empty", "", []string{"mcp", "list"}, 0, "no MCP servers yet", false},
		{"mcp add", "", []string{"mcp", "add", "tools", "--url", "http://127.0.0.1:1/mcp"}, 0, "added MCP server tools", false},
		{"mcp list", "", []string{"mcp", "list"}, 0, "http: http://127.0.0.1:1/mcp", false},
		{"mcp rm", "", []string{"mcp", "rm", "tools"}, 0, "removed", false},
		{"hooks", "", []string{"hooks"}, 0, "PreToolUse", false},
		{"checkpoints", "", []string{"checkpoints"}, 0, "", false},
		{"models", "", []string{"models"}, 0, "scripted-model", false},
		{"version", "", []string{"version"}, 0, "chat ", false},
		{"bad flag", "", []string{"--if-busy", "maybe", "-p", "x"}, 1, "--if-busy", true},
		{"unknown agent", "", []string{"--agent", "nobody", "-p", "x"}, 1, "no agent named", true},
		{"nothing to ask", "", []string{}, 1, "nothing to ask", true},
	}
	for _, s := range steps {
		out, errOut, code := w.run(s.stdin, s.args...)
		where := out
		if s.inErr {
			where = errOut
		}
		if code != s.code || !strings.Contains(where, s.out) {
			t.Errorf("%s: exit %d (want %d)\nstdout: %s\nstderr: %s", s.name, code, s.code, out, errOut)
		}
	}
	// The saved sessions: show, export, rewind, remove.
	list, _, _ := w.run("", "sessions", "list", "--json")
	var sessions []struct{ ID string }
	if err := json.Unmarshal([]byte(list), &sessions); err != nil || len(sessions) == 0 {
		t.Fatalf("sessions: %v %s", err, list)
	}
	id := sessions[0].ID
	for _, s := range []struct {
		args []string
		out  string
	}{
		{[]string{"sessions", "show", id}, "›"},
		{[]string{"sessions", "export", id, "--format", "md"}, "#"},
		{[]string{"sessions", "export", id, "--format", "json"}, `"role"`},
		{[]string{"checkpoints", "--resume", id}, ""},
		{[]string{"rewind", "--resume", id, "--conversation-only"}, ""},
		{[]string{"sessions", "rm", id}, ""},
	} {
		if out, errOut, code := w.run("", s.args...); code != 0 || !strings.Contains(out+errOut, s.out) {
			t.Errorf("%v: exit %d\n%s\n%s", s.args, code, out, errOut)
		}
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Errorf("strict server refused: %v", rej)
	}
}
