package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// attacker answers every user message with the calls an injected prompt
// would make (a command, a write, a read outside), then a plain answer.
func attacker(outside string) func(oaitest.Request) oaitest.Reply {
	return func(req oaitest.Request) oaitest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return oaitest.Answer{Text: "done"}
		}
		n := req.Index
		return oaitest.Answer{Calls: []oaitest.Call{
			{ID: fmt.Sprintf("s%d", n), Name: "run_shell", Args: fmt.Sprintf(`{"command":"touch pwned-shell-%d"}`, n)},
			{ID: fmt.Sprintf("w%d", n), Name: "write_file", Args: fmt.Sprintf(`{"path":"pwned-write-%d","content":"x"}`, n)},
			{ID: fmt.Sprintf("r%d", n), Name: "read_file", Args: fmt.Sprintf(`{"path":%q}`, outside)},
		}}
	}
}

// TestApprovalsHoldOnEveryPath: no way of building the tool set (fresh,
// --continue, --resume, --agent with and without tools, an imported
// agent) lets a call run without approval in print mode.
func TestApprovalsHoldOnEveryPath(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	_ = os.WriteFile(secret, []byte("OUTSIDE-SECRET\n"), 0o600)
	// The prompts are what this tests: the sandbox is off.
	writeConfig(t, home, `
[sandbox]
mode = "off"

[agents.withtools]
instructions = "You have tools."
tools = ["run_shell", "write_file", "read_file"]

[agents.notools]
instructions = "No tools key."
`)
	srv := oaitest.New(t)
	srv.SetFallback(attacker(secret))
	run1 := func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), home, dir))
	}
	check := func(path string, args ...string) {
		t.Helper()
		n := srv.RequestCount()
		out, errOut, code := run1(args...)
		if code != 0 || !strings.Contains(out, "done") {
			t.Fatalf("%s: %d\n%s\n%s", path, code, out, errOut)
		}
		if c := strings.Count(errOut, "needs the user's approval"); c != 3 {
			t.Errorf("%s: %d of 3 calls were refused:\n%s", path, c, errOut)
		}
		reqs := srv.Requests()
		for _, m := range reqs[len(reqs)-1].Messages {
			if strings.Contains(m.Text(), "OUTSIDE-SECRET") {
				t.Errorf("%s: the outside file reached the model", path)
			}
		}
		if srv.RequestCount() != n+2 {
			t.Errorf("%s: %d requests", path, srv.RequestCount()-n)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "pwned-*"))
		if len(matches) > 0 {
			t.Fatalf("%s: ran without approval: %v", path, matches)
		}
	}
	check("fresh", "-p", "hello")
	check("--continue", "--continue", "-p", "again")
	list, _, _ := run1("sessions", "list", "--json")
	var infos []session.Info
	if err := json.Unmarshal([]byte(list), &infos); err != nil || len(infos) == 0 {
		t.Fatal(list)
	}
	check("--resume", "--resume", infos[0].ID, "-p", "once more")
	check("--agent with tools", "--agent", "withtools", "-p", "go")
	check("--continue after --agent", "--continue", "-p", "go on")
	check("--agent without tools", "--agent", "notools", "-p", "go")
	exported, _, code := run1("agents", "export", "withtools")
	if code != 0 || !strings.Contains(exported, `"timeout"`) {
		t.Fatalf("export: %s", exported)
	}
	file := filepath.Join(t.TempDir(), "imported.json")
	_ = os.WriteFile(file, []byte(strings.Replace(exported, `"withtools"`, `"imported"`, 1)), 0o600)
	if out, errOut, code := run1("agents", "import", file); code != 0 {
		t.Fatal(out, errOut)
	}
	check("imported agent", "--agent", "imported", "-p", "go")
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// TestTUIAgentSwitchStillAsks: after /agent in the REPL, a command still
// waits for the person, and "n" keeps it from running.
func TestTUIAgentSwitchStillAsks(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(attacker("/etc/hostname"))
	tm := startTermConfig(t, srv, "", "[sandbox]\nmode = \"off\"\n[agents.helper]\ninstructions = \"Help.\"\n")
	tm.ask("/agent helper")
	tm.ask("hello")
	tm.waitFor("touch pwned-shell", 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	if m, _ := filepath.Glob(filepath.Join(tm.dir, "pwned-*")); len(m) > 0 {
		t.Fatalf("ran before approval: %v", m)
	}
	tm.answer("n")
	tm.waitFor("create pwned-write", 10*time.Second)
	tm.answer("n")
	tm.waitFor("outside the working directory", 10*time.Second)
	tm.answer("n")
	tm.waitFor("done", 10*time.Second)
	if m, _ := filepath.Glob(filepath.Join(tm.dir, "pwned-*")); len(m) > 0 {
		t.Fatalf("ran after a no: %v", m)
	}
}

// TestNothingOnDiskIsLost: --continue on a damaged session keeps the
// original aside and says where; a short session id lists without a
// panic; an empty id removes nothing; an imported agent cannot name a
// file outside the agents folder.
func TestNothingOnDiskIsLost(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "one"}, oaitest.Answer{Text: "two"})
	home, _, run1, file := savedSession(t, srv)
	sessions := filepath.Dir(file)
	files := []string{file}
	b, _ := os.ReadFile(files[0])
	damaged := string(b) + `{"type":"message","id":"x1","role":"wizard","content":"typed by hand, keep me"}` + "\n"
	_ = os.WriteFile(files[0], []byte(damaged), 0o600)
	_, errOut, code := run1("--continue", "-p", "second")
	if code != 0 || !strings.Contains(errOut, "the original is kept at") {
		t.Fatal(code, errOut)
	}
	backups, _ := filepath.Glob(files[0] + ".damaged-*")
	if len(backups) != 1 {
		t.Fatal(backups)
	}
	if kept, _ := os.ReadFile(backups[0]); string(kept) != damaged {
		t.Fatal("the backup is not the original")
	}
	// A session file with a short id.
	_ = os.WriteFile(filepath.Join(sessions, "abc.jsonl"), []byte(`{"type":"header","schema_version":1,"id":"abc","created":"2026-11-22T00:00:00Z","cwd":"/x"}`+"\n"), 0o600)
	if out, errOut, code := run1("sessions", "list"); code != 0 || !strings.Contains(out, "abc") {
		t.Fatal(code, out, errOut)
	}
	if _, errOut, code := run1("sessions", "rm", ""); code == 0 || !strings.Contains(errOut, "no session id") {
		t.Fatal(code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl")); len(left) != 2 {
		t.Fatalf("sessions left: %v", left)
	}
	evil := filepath.Join(t.TempDir(), "evil.json")
	_ = os.WriteFile(evil, []byte(`{"schema_version":1,"identifier":"../../../escaped","tools":[]}`), 0o600)
	if _, errOut, code := run1("agents", "import", evil); code == 0 || !strings.Contains(errOut, "agent identifier") {
		t.Fatal(code, errOut)
	}
	if found, _ := filepath.Glob(filepath.Join(home, "escaped*")); len(found) > 0 {
		t.Fatal(found)
	}
}

// TestBoundsAndSecrets: a server that never answers ends the run with a
// message naming the setting; config show neither runs api_key_cmd nor
// prints the base URL's user info or query.
func TestBoundsAndSecrets(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	hang := oaitest.New(t, oaitest.Func(func(w http.ResponseWriter, r *http.Request, _ oaitest.Request) bool {
		<-r.Context().Done()
		return true
	}))
	marker := filepath.Join(dir, "key-cmd-ran")
	writeConfig(t, home, fmt.Sprintf(`
header_timeout = "300ms"
api_key_cmd = "touch %s; echo sk-from-cmd"
`, marker))
	start := time.Now()
	_, errOut, code := run(t, inHome(t, command(t, hang, "-p", "hello"), home, dir))
	if code != 1 || !strings.Contains(errOut, "header_timeout") {
		t.Fatalf("%d %s", code, errOut)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	_ = os.Remove(marker)
	cmd := inHome(t, command(t, nil, "config", "show"), home, dir)
	cmd.Env = append(cmd.Env, "OPENAI_BASE_URL=http://alice:hunter2@example.invalid/v1?api-key=sk-in-query")
	out, errOut, code := run(t, cmd)
	if code != 0 || strings.Contains(out+errOut, "hunter2") || strings.Contains(out+errOut, "sk-in-query") || !strings.Contains(out, "example.invalid") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("config show ran api_key_cmd")
	}
}

// TestDeniedToolIsNotOffered: a tool the config denies is not in the
// request's tool list, and calling it anyway is refused.
func TestDeniedToolIsNotOffered(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, "[tools]\ndeny = [\"fetch_url\", \"run_shell\"]\n")
	srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "run_shell", Args: `{"command":"touch pwned"}`}}}, oaitest.Answer{Text: "ok"})
	out, errOut, code := run(t, inHome(t, command(t, srv, "--yes", "-p", "x"), home, dir))
	if code != 0 || !strings.Contains(out, "ok") || !strings.Contains(errOut, "denied by the user's configuration") {
		t.Fatal(code, out, errOut)
	}
	for _, name := range srv.Requests()[0].ToolNames() {
		if name == "fetch_url" || name == "run_shell" {
			t.Fatalf("a denied tool was offered: %v", srv.Requests()[0].ToolNames())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a denied tool ran with --yes")
	}
}

// TestTUIBurstDoesNotAnswer: a message typed while the agent works,
// landing as the approval prompt appears, is kept in the input and
// answers nothing; the command does not run until a deliberate key.
func TestTUIBurstDoesNotAnswer(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"touch ran"}`}}},
		oaitest.Answer{Text: "finished"})
	tm := startTerm(t, srv, "--sandbox", "off")
	tm.ask("do it")
	tm.waitFor("touch ran", 10*time.Second)
	tm.typeText("also check this")
	time.Sleep(800 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(tm.dir, "ran")); err == nil {
		t.Fatal("typing answered the prompt and the command ran")
	}
	tm.waitFor("also check this", 2*time.Second)
	tm.answer("y")
	tm.waitFor("finished", 10*time.Second)
	if _, err := os.Stat(filepath.Join(tm.dir, "ran")); err != nil {
		t.Fatal("the deliberate y did not run it")
	}
}

// TestCLIEdges: the small print-mode and CLI defects of issue 11.
func TestCLIEdges(t *testing.T) {
	t.Parallel()
	schema := filepath.Join(t.TempDir(), "s.json")
	_ = os.WriteFile(schema, []byte(`{"type":"object","required":["ok"]}`), 0o600)
	srv := oaitest.New(t, oaitest.Answer{Text: "not json at all, but precious"}, oaitest.Answer{Text: "fresh start"})
	srv.SetModels("m1")
	// --schema failure keeps the answer.
	_, errOut, code := run(t, command(t, srv, "--schema", schema, "-p", "x"))
	if code != 1 || !strings.Contains(errOut, "not json at all, but precious") || !strings.Contains(errOut, "try again") {
		t.Fatalf("%d %s", code, errOut)
	}
	// --continue with nothing to continue starts a session.
	out, errOut, code := run(t, command(t, srv, "--continue", "-p", "x"))
	if code != 0 || !strings.Contains(out, "fresh start") || !strings.Contains(errOut, "starting a new one") {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	// A --config that does not exist is an error.
	if _, errOut, code := run(t, command(t, srv, "--config", "/nonexistent/chat.toml", "-p", "x")); code != 1 || !strings.Contains(errOut, "/nonexistent/chat.toml") {
		t.Fatalf("%d %s", code, errOut)
	}
	// chat models --base-url, and a models failure names /models.
	if out, errOut, code := run(t, command(t, nil, "models", "--base-url", srv.BaseURL())); code != 0 || strings.TrimSpace(out) != "m1" {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	down := oaitest.New(t)
	down.Close()
	if _, errOut, code := run(t, command(t, nil, "models", "--base-url", down.BaseURL())); code != 1 || !strings.Contains(errOut, "/models") || strings.Contains(errOut, "chat/completions") {
		t.Fatalf("%d %s", code, errOut)
	}
	// -f and --schema are refused in the REPL, not ignored.
	tm := startTermOpts(t, srv, termOpts{noWait: true}, "-f", schema)
	tm.waitFor("in the REPL use /attach", 10*time.Second)
	if st := tm.exitStatus(10 * time.Second); st != "1" {
		t.Fatalf("exit status %s", st)
	}
}

// TestLoadPrunesBrokenExchanges: a session file holding a tool call with
// no result before a later message (an old crash, a hand edit) is
// repaired on load, so the strict server accepts the continued history.
func TestLoadPrunesBrokenExchanges(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "one"}, oaitest.Answer{Text: "two"})
	_, _, run1, file := savedSession(t, srv)
	files := []string{file}
	b, _ := os.ReadFile(files[0])
	broken := string(b) +
		`{"type":"message","id":"b1","role":"assistant","time":"2026-11-22T00:00:00Z","tool_calls":[{"id":"x1","name":"read_file","arguments":"{}"}]}` + "\n" +
		`{"type":"message","id":"b2","role":"user","time":"2026-11-22T00:00:01Z","content":"asked after the crash"}` + "\n" +
		`{"type":"message","id":"b3","role":"assistant","time":"2026-11-22T00:00:02Z","content":"answered"}` + "\n"
	_ = os.WriteFile(files[0], []byte(broken), 0o600)
	if out, errOut, code := run1("--continue", "-p", "second"); code != 0 || !strings.Contains(out, "two") {
		t.Fatal(code, out, errOut)
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatalf("the strict server refused the continued history: %v", rej)
	}
}

// TestStepBudgetHasOneMeaning: 0 and -1 are unlimited for the flag, the
// config and agent files alike; below -1 is an error, not "unlimited".
func TestStepBudgetHasOneMeaning(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, "max_steps = -1\n[agents.a]\nmax_steps = 0\n[agents.b]\nmax_steps = -1\n")
	out, errOut, code := run(t, inHome(t, command(t, nil, "agents", "list"), home, dir))
	if code != 0 || strings.Count(out, "unlimited") != 2 {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := run(t, inHome(t, command(t, nil, "--max-steps", "-5", "-p", "x"), home, dir)); code != 1 || !strings.Contains(errOut, "0 for unlimited") {
		t.Fatalf("%d %s", code, errOut)
	}
}

// TestShellPolicyThroughTheBinary: an injected prompt's chained commands
// against allow_shell and deny_shell, in print mode: the allowed command
// runs, a chained one is refused without --yes, and a denied one is
// refused even with --yes.
func TestShellPolicyThroughTheBinary(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, "[sandbox]\nmode = \"off\"\n[tools]\nallow_shell = [\"echo\"]\ndeny_shell = [\"rm\"]\n")
	_ = os.WriteFile(filepath.Join(dir, "victim"), []byte("keep me"), 0o600)
	shell := func(id, command string) oaitest.Answer {
		args, _ := json.Marshal(map[string]string{"command": command})
		return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell", Args: string(args)}}}
	}
	srv := oaitest.New(t,
		shell("a", "echo allowed > /dev/null"), oaitest.Answer{Text: "one"},
		shell("b", "echo hi; touch pwned"), oaitest.Answer{Text: "two"},
		shell("c", `true && \rm -f victim`), oaitest.Answer{Text: "three"})
	run1 := func(args ...string) string {
		_, errOut, code := run(t, inHome(t, command(t, srv, args...), home, dir))
		if code != 0 {
			t.Fatalf("%d %s", code, errOut)
		}
		return errOut
	}
	if errOut := run1("--no-save", "-p", "a"); !strings.Contains(errOut, "✓") {
		t.Fatalf("the allowed command did not run:\n%s", errOut)
	}
	if errOut := run1("--no-save", "-p", "b"); !strings.Contains(errOut, "needs the user's approval") {
		t.Fatalf("a chained command ran:\n%s", errOut)
	}
	if errOut := run1("--no-save", "--yes", "-p", "c"); !strings.Contains(errOut, "denied by the user's configuration") {
		t.Fatalf("a denied command ran with --yes:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the chained command ran")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "victim")); string(b) != "keep me" {
		t.Fatal("the denied rm ran")
	}
}

// writeConfig puts a config file where chat run with HOME=home reads it.
func writeConfig(t *testing.T, home, toml string) {
	t.Helper()
	dir := filepath.Join(home, ".config", "chat")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// savedSession runs one print-mode exchange in a fresh home and working
// directory, and returns them, a runner for more commands there, and the
// session file that exchange saved.
func savedSession(t *testing.T, srv *oaitest.Server) (home, dir string, run1 func(args ...string) (string, string, int), file string) {
	t.Helper()
	home, dir = t.TempDir(), t.TempDir()
	run1 = func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), home, dir))
	}
	if _, errOut, code := run1("-p", "first"); code != 0 {
		t.Fatal(errOut)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".local", "share", "chat", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	return home, dir, run1, files[0]
}

// TestTUISentenceNeverAnswersAPrompt: a person who starts typing their
// next message while a prompt is up, its first letter one of the answer
// keys, answers nothing: at 5 and 10 keys a second, 0.2, 1 and 3 s after
// the prompt appeared, the command does not run and the sentence is in
// the input (the "a" of "also check this" approved it always). A key
// that stands alone still answers.
func TestTUISentenceNeverAnswersAPrompt(t *testing.T) {
	t.Parallel()
	sentences := map[string]string{"y": "yes and also this", "a": "also check this", "n": "now look here", "t": "then run tests"}
	for _, letter := range []string{"y", "a", "n", "t"} {
		for _, perSecond := range []int{5, 10} {
			for _, after := range []time.Duration{200 * time.Millisecond, time.Second, 3 * time.Second} {
				t.Run(fmt.Sprintf("%s/%dkps/%s", letter, perSecond, after), func(t *testing.T) {
					t.Parallel()
					srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"touch ran"}`}}},
						oaitest.Answer{Text: "finished"})
					tm := startTerm(t, srv, "--sandbox", "off")
					tm.ask("do it")
					tm.waitFor("touch ran", 10*time.Second)
					// Keys go through one control client: a tmux process
					// started per key would space them by a loaded
					// machine's fork time, not by the typing speed.
					keys := attachTmuxControl(t, tm.socket, "main")
					time.Sleep(after)
					for _, r := range sentences[letter] {
						if err := keys.command(fmt.Sprintf("send-keys -t main -l '%c'", r), false); err != nil {
							t.Fatal(err)
						}
						time.Sleep(time.Second / time.Duration(perSecond))
					}
					time.Sleep(time.Second)
					if fileExists(filepath.Join(tm.dir, "ran")) {
						t.Fatalf("typing %q answered the prompt:\n%s", sentences[letter], tm.screen())
					}
					tm.waitForInput("› " + sentences[letter])
				})
			}
		}
	}
	t.Run("a key alone answers", func(t *testing.T) {
		t.Parallel()
		srv := oaitest.New(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"touch ran"}`}}},
			oaitest.Answer{Text: "finished"})
		tm := startTerm(t, srv, "--sandbox", "off")
		tm.ask("do it")
		tm.waitFor("touch ran", 10*time.Second)
		time.Sleep(time.Second)
		tm.typeText("y")
		tm.waitFor("finished", 10*time.Second)
		if !fileExists(filepath.Join(tm.dir, "ran")) {
			t.Fatal("a deliberate y did not run it")
		}
	})
}
