package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// mkfile writes text at path, making its folders.
func mkfile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestProjectInstructionsReachTheRequest: the personal AGENTS.md, the
// repository root's and each folder's down to the working directory go
// into the system prompt in that order, CLAUDE.md standing in where a
// folder has no AGENTS.md; --no-project-instructions leaves them out.
func TestProjectInstructionsReachTheRequest(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), t.TempDir()
	_ = os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	wd := filepath.Join(repo, "svc", "api")
	mkfile(t, filepath.Join(home, ".config", "chat", "AGENTS.md"), "PERSONAL-RULE: answer in English.")
	mkfile(t, filepath.Join(repo, "AGENTS.md"), "ROOT-RULE: run make test before you finish.")
	mkfile(t, filepath.Join(repo, "CLAUDE.md"), "ROOT-CLAUDE: must not be read (AGENTS.md is there).")
	mkfile(t, filepath.Join(repo, "svc", "CLAUDE.md"), "SVC-RULE: services log with slog.")
	mkfile(t, filepath.Join(wd, "AGENTS.md"), "API-RULE: handlers return JSON errors.")
	mkfile(t, filepath.Join(filepath.Dir(repo), "AGENTS.md"), "ABOVE-RULE")
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "ok"} })
	_, errOut, code := run(t, inHome(t, command(t, srv, "-p", "hi"), home, wd))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	system := srv.Requests()[0].Messages[0].Text()
	last := -1
	for _, want := range []string{"PERSONAL-RULE", "ROOT-RULE", "SVC-RULE", "API-RULE"} {
		i := strings.Index(system, want)
		if i < 0 || i < last {
			t.Fatalf("%s missing or out of order in the system prompt:\n%s", want, system)
		}
		last = i
	}
	if strings.Contains(system, "ROOT-CLAUDE") || strings.Contains(system, "ABOVE-RULE") {
		t.Fatalf("read a file it should not:\n%s", system)
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
	_, _, code = run(t, inHome(t, command(t, srv, "-p", "hi", "--no-project-instructions"), home, wd))
	if system := srv.Requests()[1].Messages[0].Text(); code != 0 || strings.Contains(system, "RULE") {
		t.Fatalf("--no-project-instructions: exit %d, system prompt:\n%s", code, system)
	}
}

// hookWorld is a working directory, a home whose config has hooks, and
// a folder outside both where hook scripts leave their traces.
type hookWorld struct {
	home, dir, traces string
}

func newHookWorld(t *testing.T, hooksTOML string) hookWorld {
	// The traces are in the working directory: hooks run in the sandbox,
	// which writes only there.
	w := hookWorld{home: t.TempDir(), dir: t.TempDir()}
	w.traces = filepath.Join(w.dir, "traces")
	if err := os.Mkdir(w.traces, 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, w.home, strings.ReplaceAll(hooksTOML, "TRACES", w.traces))
	return w
}

func (w hookWorld) chat(t *testing.T, srv *oaitest.Server, args ...string) (string, string, int) {
	return run(t, inHome(t, command(t, srv, args...), w.home, w.dir))
}

// calls answers the first request with calls, later ones with "done".
func calls(cs ...oaitest.Call) func(oaitest.Request) oaitest.Reply {
	return func(req oaitest.Request) oaitest.Reply {
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return oaitest.Answer{Text: "done"}
		}
		return oaitest.Answer{Calls: cs}
	}
}

func shellCall(id, command string) oaitest.Call {
	b, _ := json.Marshal(map[string]string{"command": command})
	return oaitest.Call{ID: id, Name: "run_shell", Args: string(b)}
}

func writeCall(id, path string) oaitest.Call {
	return oaitest.Call{ID: id, Name: "write_file", Args: fmt.Sprintf(`{"path":%q,"content":"x\n"}`, path)}
}

// toolResults are the tool messages of the last request, by call id.
func toolResults(srv *oaitest.Server) map[string]string {
	reqs := srv.Requests()
	out := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

// TestPreToolUseHooks: exit 2 blocks with its stderr for the model; a JSON
// deny blocks; ask makes a call that --yes would allow ask (refused in
// print mode); allow runs a call that would ask, but never past a deny
// list or out of the sandbox.
func TestPreToolUseHooks(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, `
[tools]
deny_shell = ["rm"]

[[hooks.PreToolUse]]
matcher = "run_shell"
command = '''grep -q fridays && { echo "no shell on fridays" >&2; exit 2; }; exit 0'''

[[hooks.PreToolUse]]
matcher = "run_shell"
command = '''grep -q policy && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the policy says no"}}'; exit 0'''

[[hooks.PreToolUse]]
matcher = "write_file"
command = '''if grep -q asked; then echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"review writes to asked*"}}'; else echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; fi'''

[[hooks.PreToolUse]]
matcher = "run_shell"
command = '''grep -q -e 'rm ' -e justification && echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; exit 0'''
`)
	srv := oaitest.New(t)
	srv.SetFallback(calls(
		shellCall("fri", "touch fridays.txt"),
		shellCall("pol", "touch policy.txt"),
		oaitest.Call{ID: "out", Name: "run_shell", Args: `{"command":"touch unboxed.txt","unsandboxed":true,"justification":"needs the network"}`},
		shellCall("rm", "rm keep.txt"),
		writeCall("allowed", "allowed.txt"),
	))
	mkfile(t, filepath.Join(w.dir, "keep.txt"), "keep")
	out, errOut, code := w.chat(t, srv, "-p", "go")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	res := toolResults(srv)
	for id, want := range map[string]string{"fri": "no shell on fridays", "pol": "the policy says no", "out": "approval", "rm": "denied by the user's configuration"} {
		if !strings.Contains(res[id], want) {
			t.Errorf("%s: the model read %q, want %q", id, res[id], want)
		}
	}
	for _, f := range []string{"fridays.txt", "policy.txt", "unboxed.txt"} {
		if fileExists(filepath.Join(w.dir, f)) {
			t.Errorf("%s was made", f)
		}
	}
	if !fileExists(filepath.Join(w.dir, "keep.txt")) {
		t.Error("a hook's allow got past deny_shell")
	}
	if !fileExists(filepath.Join(w.dir, "allowed.txt")) {
		t.Errorf("the hook's allow did not let write_file run without a prompt: %q", res["allowed"])
	}
	// ask: --yes would write it; the hook wants the person, who is not here.
	srv2 := oaitest.New(t)
	srv2.SetFallback(calls(writeCall("ask", "asked.txt")))
	_, errOut, _ = w.chat(t, srv2, "-p", "go", "--yes")
	if fileExists(filepath.Join(w.dir, "asked.txt")) || !strings.Contains(toolResults(srv2)["ask"], "review writes") {
		t.Errorf("ask did not ask: %q\n%s", toolResults(srv2)["ask"], errOut)
	}
}

// TestPostToolUseAndPromptHooks: PostToolUse reads the call's result and
// may add to what the model reads; UserPromptSubmit and SessionStart add
// context to the message; a Stop hook may send the agent back to work.
func TestPostToolUseAndPromptHooks(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, `
[[hooks.PostToolUse]]
command = '''cat > TRACES/post.json; echo '{"decision":"block","reason":"lint failed: fix line 3"}' '''

[[hooks.UserPromptSubmit]]
command = '''cat > TRACES/prompt.json; echo "CTX-FROM-PROMPT-HOOK"'''

[[hooks.SessionStart]]
command = '''echo "CTX-FROM-SESSION-START"'''

[[hooks.Stop]]
command = '''test -e TRACES/stopped && exit 0; touch TRACES/stopped; echo "tests still fail" >&2; exit 2'''
`)
	srv := oaitest.New(t)
	srv.SetFallback(calls(shellCall("echo", "echo hello-from-the-tool")))
	out, errOut, code := w.chat(t, srv, "-p", "check it")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	post, _ := os.ReadFile(filepath.Join(w.traces, "post.json"))
	var in struct {
		Event    string          `json:"hook_event_name"`
		Tool     string          `json:"tool_name"`
		Input    json.RawMessage `json:"tool_input"`
		Response struct {
			Output string `json:"output"`
		} `json:"tool_response"`
		Session string `json:"session_id"`
		Cwd     string `json:"cwd"`
	}
	if err := json.Unmarshal(post, &in); err != nil || in.Event != "PostToolUse" || in.Tool != "run_shell" ||
		!strings.Contains(in.Response.Output, "hello-from-the-tool") || in.Session == "" || in.Cwd == "" {
		t.Fatalf("PostToolUse read %s (%v)", post, err)
	}
	reqs := srv.Requests()
	first := reqs[0].Messages[len(reqs[0].Messages)-1].Text()
	if !strings.Contains(first, "CTX-FROM-PROMPT-HOOK") || !strings.Contains(first, "CTX-FROM-SESSION-START") || !strings.Contains(first, "check it") {
		t.Errorf("the message went as %q", first)
	}
	if !strings.Contains(toolResults(srv)["echo"], "lint failed: fix line 3") {
		t.Errorf("PostToolUse's reason did not reach the model: %q", toolResults(srv)["echo"])
	}
	sentBack := false
	for _, r := range reqs {
		m := r.Messages[len(r.Messages)-1]
		sentBack = sentBack || m.Role == "user" && strings.Contains(m.Text(), "tests still fail")
	}
	if !sentBack || !strings.Contains(errOut, "sends the agent back to work") {
		t.Errorf("the Stop hook did not send the agent back (%d requests):\n%s", len(reqs), errOut)
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
	// The prompt hook blocks a message: nothing is sent, the person is told.
	w2 := newHookWorld(t, `
[[hooks.UserPromptSubmit]]
command = '''grep -q password && { echo "no secrets in prompts" >&2; exit 2; }; exit 0'''
`)
	srv2 := oaitest.New(t)
	_, errOut, code = w2.chat(t, srv2, "-p", "my password is hunter2")
	if code == 0 || srv2.RequestCount() != 0 || !strings.Contains(errOut, "no secrets in prompts") {
		t.Fatalf("exit %d, %d requests, stderr %s", code, srv2.RequestCount(), errOut)
	}
}

// TestHangingHookTimesOut: a hook past its timeout is stopped, shown, and
// decides nothing: the call is judged as without it (write_file is still
// refused in print mode).
func TestHangingHookTimesOut(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, `
[[hooks.PreToolUse]]
command = "sleep 60; echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\"}}'"
timeout = "1s"
`)
	srv := oaitest.New(t)
	srv.SetFallback(calls(writeCall("w", "hung.txt")))
	out, errOut, code := w.chat(t, srv, "-p", "go")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "timed out after 1s") {
		t.Errorf("the timeout was not shown:\n%s", errOut)
	}
	if fileExists(filepath.Join(w.dir, "hung.txt")) || !strings.Contains(toolResults(srv)["w"], "approval") {
		t.Errorf("a hung hook counted as approval: %q", toolResults(srv)["w"])
	}
}

// TestUntrustedProjectHooksDoNotRun: a cloned repository's
// .chat/hooks.toml runs nothing until the person trusts it (chat hooks
// trust); a change to the file needs trust again.
func TestUntrustedProjectHooksDoNotRun(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, "")
	hooks := fmt.Sprintf("[[hooks.UserPromptSubmit]]\ncommand = \"touch %s/pwned\"\n", w.traces)
	mkfile(t, filepath.Join(w.dir, ".chat", "hooks.toml"), hooks)
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "ok"} })
	_, errOut, code := w.chat(t, srv, "-p", "hi")
	if code != 0 || fileExists(filepath.Join(w.traces, "pwned")) {
		t.Fatalf("an untrusted project's hook ran (exit %d)", code)
	}
	if !strings.Contains(errOut, "chat hooks trust") {
		t.Errorf("nothing said about the untrusted hooks:\n%s", errOut)
	}
	out, _, _ := w.chat(t, nil, "hooks")
	if !strings.Contains(out, "not trusted") || !strings.Contains(out, "touch") {
		t.Errorf("chat hooks:\n%s", out)
	}
	if out, errOut, code := w.chat(t, nil, "hooks", "trust"); code != 0 || !strings.Contains(out, "touch") {
		t.Fatalf("chat hooks trust: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, _ := w.chat(t, srv, "-p", "hi"); !fileExists(filepath.Join(w.traces, "pwned")) {
		t.Fatalf("the trusted hook did not run:\n%s", errOut)
	}
	// Changed after trust: asks again, and says what changed.
	_ = os.Remove(filepath.Join(w.traces, "pwned"))
	mkfile(t, filepath.Join(w.dir, ".chat", "hooks.toml"), hooks+"\n[[hooks.Stop]]\ncommand = \"curl evil.example\"\n")
	if _, errOut, _ := w.chat(t, srv, "-p", "hi"); fileExists(filepath.Join(w.traces, "pwned")) || !strings.Contains(errOut, "changed since you trusted it") {
		t.Fatalf("a changed hooks file ran without new trust, or was not said to have changed:\n%s", errOut)
	}
	if out, _, _ := w.chat(t, nil, "hooks"); !strings.Contains(out, "changed since you trusted it") || !strings.Contains(out, "+command = \"curl evil.example\"") {
		t.Errorf("chat hooks does not show what changed:\n%s", out)
	}
}

// TestProjectHooksRunFromASubfolder: the project is the repository, for
// hooks as for AGENTS.md: trusted at the root, its hooks run when chat
// starts in a subfolder (they did not).
func TestProjectHooksRunFromASubfolder(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, "")
	_ = os.MkdirAll(filepath.Join(w.dir, ".git"), 0o755)
	// It runs in the project's root, in the box of the session's folder:
	// what it writes goes there.
	mkfile(t, filepath.Join(w.dir, ".chat", "hooks.toml"), "[[hooks.UserPromptSubmit]]\ncommand = \"touch pkg/deep/ran\"\n")
	sub := filepath.Join(w.dir, "pkg", "deep")
	_ = os.MkdirAll(sub, 0o755)
	w.dir = sub
	if out, errOut, code := w.chat(t, nil, "hooks", "trust"); code != 0 || !strings.Contains(out, "touch") {
		t.Fatalf("chat hooks trust from a subfolder: %d\n%s\n%s", code, out, errOut)
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "ok"})
	if _, errOut, code := w.chat(t, srv, "-p", "hi"); code != 0 || !fileExists(filepath.Join(sub, "ran")) {
		t.Fatalf("the project's hook did not run from a subfolder (exit %d):\n%s", code, errOut)
	}
}

// TestSubAgentsHearTheProject: a sub-agent's system prompt carries the
// project's instructions, its tool calls go through PreToolUse hooks,
// and its end runs SubagentStop (not Stop).
func TestSubAgentsHearTheProject(t *testing.T) {
	t.Parallel()
	srv := researchServer(t)
	w := newHookWorld(t, personaConfig+`
[[hooks.PreToolUse]]
command = "cat >> TRACES/pre.jsonl"

[[hooks.SubagentStop]]
command = "echo subagent-stop >> TRACES/stops"

[[hooks.Stop]]
command = "echo main-stop >> TRACES/stops"
`)
	mkfile(t, filepath.Join(w.dir, "notes.txt"), "the build is green\n")
	mkfile(t, filepath.Join(w.dir, "AGENTS.md"), "PROJECT-RULE-FOR-ALL")
	out, errOut, code := w.chat(t, srv, "-p", "check the notes")
	if code != 0 || !strings.Contains(out, "build is green") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, r := range srv.Requests() {
		if !strings.Contains(r.Messages[0].Text(), "PROJECT-RULE-FOR-ALL") {
			t.Fatalf("a request without the project's instructions: %.200q", r.Messages[0].Text())
		}
	}
	pre, _ := os.ReadFile(filepath.Join(w.traces, "pre.jsonl"))
	if !strings.Contains(string(pre), `"tool_name":"agent"`) || !strings.Contains(string(pre), `"tool_name":"read_file"`) {
		t.Fatalf("PreToolUse saw: %s", pre)
	}
	if stops, _ := os.ReadFile(filepath.Join(w.traces, "stops")); string(stops) != "subagent-stop\nmain-stop\n" {
		t.Fatalf("stop hooks ran as %q", stops)
	}
}
