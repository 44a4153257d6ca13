package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestDenyHoldsThroughTheBinary: with deny_shell = rm, git push, curl and
// --yes, every way around the parser that an injected prompt would try
// leaves the victim file in place, in the sandbox and with it off.
func TestDenyHoldsThroughTheBinary(t *testing.T) {
	t.Parallel()
	lines := []string{
		"/bin/r[m] -f victim", "/usr/bin/r? -f victim", "bash /dev/stdin <<<'rm -f victim'", "bash <(echo rm -f victim)",
		"source /dev/stdin <<<'rm -f victim'", "trap 'rm -f victim' EXIT", "PS4='$(rm -f victim)'; set -x; true",
		"printf 'a\\n' | mapfile -C 'rm -f victim #' -c 1 arr", "hash -p /bin/rm ll; ll -f victim", "shopt -s expand_aliases\nalias ll='r\\m'\nll -f victim",
		"env -iS 'rm -f victim'", "env --split-string='rm -f victim'", "env -iu X rm -f victim", "exec -la foo rm -f victim",
		"timeout -vs KILL 5 rm -f victim", "echo victim | xargs -tn 1 rm -f", "flock L rm -f victim", "taskset -c 0 rm -f victim",
		"script -qc 'rm -f victim' /dev/null", "setsid -w rm -f victim", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm -f victim' .",
		"x='a[$(rm -f victim)]'; [[ $x -eq 0 ]]", "[[ 'a[$(rm -f victim)]' -eq 0 ]]", "for x in 'a[$(rm -f victim)]'; do (( x )); done",
		"git -c alias.x='!rm -f victim' x", "c=m; r$c -f victim",
	}
	eachMode(t, func(t *testing.T, mode string) {
		w := newBoxedWorld(t)
		writeConfig(t, w.home, "[tools]\ndeny_shell = [\"rm\", \"git push\", \"curl\"]\n")
		for i, line := range lines {
			victim := filepath.Join(w.dir, "victim")
			_ = os.WriteFile(victim, []byte("keep"), 0o644)
			srv := oaitest.New(t)
			srv.SetFallback(shellCalls([]string{line}, nil))
			_, errOut, code := run(t, w.chat(t, srv, "--sandbox", mode, "--yes", "--no-save", "-p", fmt.Sprint("go ", i)))
			if code != 0 {
				t.Fatalf("%q: exit %d\n%s", line, code, errOut)
			}
			if !fileExists(victim) {
				t.Errorf("%q ran rm with --yes:\n%s", line, errOut)
			}
		}
	})
}

// TestPolicyFailsClosedThroughTheBinary: with the sandbox off and no
// --yes, lines with no simple command and lines that escape an allow list
// (allow_shell = echo, git diff, git status, go test, ls, cat) do nothing
// without a person.
func TestPolicyFailsClosedThroughTheBinary(t *testing.T) {
	t.Parallel()
	w := newBoxedWorld(t)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n[tools]\nallow_shell = [\"echo\", \"git diff\", \"git status\", \"go test\", \"ls\", \"cat\"]\n")
	_ = os.MkdirAll(filepath.Join(w.dir, "bin"), 0o755)
	_ = os.WriteFile(filepath.Join(w.dir, "bin", "ls"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755)
	prof := filepath.Join(w.outside, "cpu.prof")
	lines := []string{
		`[[ 'a[$(touch pwned)]' -eq 0 ]]`, `[[ -v 'a[$(touch pwned)]' ]]`, `[[ -n ${a['$(touch pwned)']} ]]`,
		`for x in 'a[$(touch pwned)]'; do (( x )); done`,
		"env --split-string='touch pwned' ls", "env -iu ls touch pwned", "exec -la ls touch pwned", "for PATH in bin; do ls; done",
		"go test -cpuprofile=" + prof + " ./...", "cat ~/.ssh/id_rsa", fmt.Sprintf("cat < /dev/tcp/127.0.0.1/%d", w.port),
		fmt.Sprintf("< /dev/tcp/127.0.0.1/%d", w.port),
	}
	if _, err := exec.LookPath("git"); err == nil {
		// A repository whose config was given an fsmonitor: git status runs it.
		w.gitConfig = "[core]\n\tfsmonitor = touch pwned-by-git #\n"
		_ = os.WriteFile(filepath.Join(w.dir, ".git", "config"), []byte(w.gitConfig), 0o644)
		_ = os.MkdirAll(filepath.Join(w.dir, ".git", "objects"), 0o755)
		_ = os.MkdirAll(filepath.Join(w.dir, ".git", "refs"), 0o755)
		_ = os.WriteFile(filepath.Join(w.dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		lines = append(lines, "git status")
	}
	srv := oaitest.New(t)
	srv.SetFallback(shellCalls(lines, nil))
	_, errOut, code := run(t, w.chat(t, srv, "--no-save", "-p", "go"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := strings.Count(errOut, "needs the user's approval"); n != len(lines) {
		t.Errorf("%d of %d lines were refused:\n%s", n, len(lines), errOut)
	}
	for _, p := range []string{filepath.Join(w.dir, "pwned"), filepath.Join(w.dir, "pwned-by-git"), prof} {
		if fileExists(p) {
			t.Errorf("%s was made without approval", p)
		}
	}
	w.planted(t, srv)
}

// planted fails when a secret planted in w reached the model, or a
// connection reached w's listener.
func (w *boxedWorld) planted(t *testing.T, srv *oaitest.Server) {
	t.Helper()
	if harm := w.harmed(t, srv); len(harm) > 0 {
		t.Errorf("%v", harm)
	}
}

// TestConfigShowsWhatItHas: chat config init shows how to write the
// tables people ask about, and chat config show has the settings that
// were left out (timeouts, tools, personas, MCP servers), never an MCP
// server's env.
func TestConfigShowsWhatItHas(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	if _, errOut, code := run(t, inHome(t, command(t, nil, "config", "init"), home, dir)); code != 0 {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".config", "chat", "config.toml"))
	for _, want := range []string{"[tools]", "[agents.reviewer]", "description =", "[mcp.github]", "[sandbox]", "[checkpoints]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config init lacks %s", want)
		}
	}
	writeConfig(t, home, "idle_timeout = \"90s\"\n[tools]\nallow = [\"write_file\"]\ndeny_shell = [\"rm\"]\n[agents.helper]\ninstructions = \"x\"\n[mcp.gh]\ncommand = \"gh-mcp\"\nenv = { GITHUB_TOKEN = \"ghp-in-config-secret\" }\n")
	out, errOut, _ := run(t, inHome(t, command(t, nil, "config", "show"), home, dir))
	for _, want := range []string{"idle_timeout   = \"1m30s\"", "tools.allow", "write_file", "tools.deny_shell", "agents", "helper", "mcp", "gh"} {
		if !strings.Contains(out, want) {
			t.Errorf("config show lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if strings.Contains(out, "ghp-in-config-secret") {
		t.Fatal("config show printed an MCP server's env")
	}
}

// TestDemoWritesNoEscapesIntoAPipe: make demo's server writes plain text
// when its output is not a terminal.
func TestDemoWritesNoEscapesIntoAPipe(t *testing.T) {
	t.Parallel()
	demo := filepath.Join(t.TempDir(), "demoserver")
	if out, err := exec.Command("go", "build", "-o", demo, "../demoserver").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cmd := exec.Command(demo, "-delay", "0s", "-demo", chatBin)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(string(out), "\x1b") || !strings.Contains(string(out), "DEMO 4/4") {
		t.Fatalf("escape codes in a pipe, or not four prompts:\n%q", out)
	}
}

// TestMakeRunWithoutEndpoint: make run with nothing configured ends with
// chat's own advice, not a make error that reads like a failed build.
func TestMakeRunWithoutEndpoint(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	home := t.TempDir()
	cmd := exec.Command("make", "-s", "run")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "Error 1") {
		t.Fatalf("make run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "chat:") {
		t.Fatalf("chat said nothing:\n%s", out)
	}
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
