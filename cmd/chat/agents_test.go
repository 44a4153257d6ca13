package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

func TestAgentsFromConfig(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	cfgDir := filepath.Join(home, ".config", "chat")
	_ = os.MkdirAll(cfgDir, 0o700)
	_ = os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(`
[agents.reviewer]
model = "review-model"
instructions = "You review Go code."
max_steps = -1
tools = ["read_file"]
temperature = 0.1
`), 0o600)
	srv := oaitest.New(t, oaitest.Answer{Text: "looks fine"}, oaitest.Answer{Text: "still fine"})
	run1 := func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), home, dir))
	}
	list, _, _ := run1("agents", "list")
	if !strings.Contains(list, "reviewer") || !strings.Contains(list, "review-model") || !strings.Contains(list, "unlimited") {
		t.Fatalf("list:\n%s", list)
	}
	if out, errOut, code := run1("--agent", "reviewer", "-p", "review main.go"); code != 0 || !strings.Contains(out, "looks fine") {
		t.Fatal(code, out, errOut)
	}
	req := srv.Requests()[0]
	if req.Model != "review-model" || req.Messages[0].Text() != "You review Go code." || strings.Join(req.ToolNames(), ",") != "read_file" {
		t.Fatalf("request model %s system %q tools %v", req.Model, req.Messages[0].Text(), req.ToolNames())
	}
	// The session remembers its agent: --continue uses it without --agent.
	if _, _, code := run1("--continue", "-p", "and now?"); code != 0 {
		t.Fatal(code)
	}
	if req := srv.Requests()[1]; req.Model != "review-model" || strings.Join(req.ToolNames(), ",") != "read_file" {
		t.Fatalf("continued with model %s tools %v", req.Model, req.ToolNames())
	}

	exported, _, code := run1("agents", "export", "reviewer")
	var wire map[string]any
	if code != 0 || json.Unmarshal([]byte(exported), &wire) != nil || wire["schema_version"] != 2.0 || wire["max_steps"] != -1.0 ||
		wire["tools"].([]any)[0].(map[string]any)["parameters_schema"] == nil {
		t.Fatalf("export:\n%s", exported)
	}
	if strings.Contains(exported, "sk-test-secret") {
		t.Fatal("the key was exported")
	}
	// Import into another home; bad definitions are refused.
	other := t.TempDir()
	file := filepath.Join(t.TempDir(), "reviewer.json")
	_ = os.WriteFile(file, []byte(exported), 0o600)
	runOther := func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), other, dir))
	}
	if out, errOut, code := runOther("agents", "import", file); code != 0 || !strings.Contains(out, "imported agent reviewer") {
		t.Fatal(out, errOut)
	}
	if list, _, _ := runOther("agents", "list"); !strings.Contains(list, "reviewer") || !strings.Contains(list, "imported") {
		t.Fatal(list)
	}
	// Imported where the config has an agent of the same name: the config's
	// wins, and both the import and the list say so.
	if out, errOut, code := run1("agents", "import", "--force", file); code != 0 || !strings.Contains(out, "[agents.reviewer]") || !strings.Contains(out, "wins") {
		t.Fatalf("import over a config agent: %d\n%s\n%s", code, out, errOut)
	}
	if list, _, _ := run1("agents", "list"); !strings.Contains(list, "config (shadows the imported one)") {
		t.Fatal(list)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(strings.Replace(exported, `"read_file"`, `"launch_rockets"`, 1)), 0o600)
	if _, errOut, code := runOther("agents", "import", bad); code != 1 || !strings.Contains(errOut, "launch_rockets") {
		t.Fatal(errOut)
	}
	_ = os.WriteFile(bad, []byte(strings.Replace(exported, `"schema_version": 2`, `"schema_version": 9`, 1)), 0o600)
	if _, errOut, code := runOther("agents", "import", bad); code != 1 || !strings.Contains(errOut, "schema_version 9") {
		t.Fatal(errOut)
	}
	if _, errOut, code := run1("--agent", "nobody", "-p", "x"); code != 1 || !strings.Contains(errOut, `no agent named "nobody"`) {
		t.Fatal(errOut)
	}
}

func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	schema := filepath.Join(t.TempDir(), "verdict.json")
	_ = os.WriteFile(schema, []byte(`{"type":"object","properties":{"ok":{"type":"boolean"},"reason":{"type":"string"}},"required":["ok"]}`), 0o600)
	srv := oaitest.New(t, oaitest.Answer{Text: `{"ok": true, "reason": "tests pass"}`}, oaitest.Answer{Text: `{"ok": "maybe"}`})
	out, errOut, code := run(t, command(t, srv, "--schema", schema, "-p", "is it ok?"))
	if code != 0 {
		t.Fatal(code, errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["ok"] != true {
		t.Fatalf("stdout %q", out)
	}
	if rf := string(srv.Requests()[0].ResponseFormat); !strings.Contains(rf, `"json_schema"`) || !strings.Contains(rf, `"required":["ok"]`) {
		t.Fatalf("response_format %s", rf)
	}
	_, errOut, code = run(t, command(t, srv, "--schema", schema, "-p", "again"))
	if code != 1 || !strings.Contains(errOut, "does not match the schema") {
		t.Fatal(code, errOut)
	}
}

// TestTUIAgentIsNotAOneWayDoor: /agent default goes back to the default
// agent, /agent lists it with the others and marks the current one, and
// the status bar names the persona in use.
func TestTUIAgentIsNotAOneWayDoor(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "as helper"}, oaitest.Answer{Text: "as default"})
	tm := startTermConfig(t, srv, "", "[agents.helper]\ninstructions = \"You are the helper persona.\"\n")
	tm.ask("/agent helper")
	tm.waitFor("agent is now helper", 5*time.Second)
	tm.waitFor("· agent helper", 5*time.Second) // the status bar
	tm.ask("/agent")
	tm.waitFor("▸ helper", 5*time.Second)
	tm.ask("hi")
	tm.waitFor("as helper", 10*time.Second)
	tm.ask("/agent default")
	tm.waitFor("agent is now default", 5*time.Second)
	tm.ask("hi again")
	tm.waitFor("as default", 10*time.Second)
	for _, l := range strings.Split(tm.screen(), "\n") {
		if strings.Contains(l, "scripted-model ·") && strings.Contains(l, "agent helper") {
			t.Fatalf("the status bar still names the persona: %q", l)
		}
	}
	reqs := srv.Requests()
	if sys := reqs[0].Messages[0].Text(); !strings.HasPrefix(sys, "You are the helper persona.") {
		t.Fatalf("the persona's turn: %q", sys)
	}
	if sys := reqs[1].Messages[0].Text(); !strings.HasPrefix(sys, "You are a helpful assistant") {
		t.Fatalf("after /agent default the system prompt is %q", sys)
	}
}
