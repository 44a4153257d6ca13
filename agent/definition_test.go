package agent_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/tool"
)

func TestDefinitionJSON(t *testing.T) {
	t.Parallel()
	temp := float32(0.2)
	full := agent.Definition{
		Identifier: "reviewer", Model: "gpt-4o-mini", Instructions: "Review code.",
		Options: agent.ModelOptions{Temperature: &temp, MaxTokens: 500}, MaxSteps: 8,
		Tools:            []agent.ToolDescriptor{{Name: "read_file", Description: "reads", ParametersSchema: json.RawMessage(`{"type":"object"}`), Timeout: 10}},
		StructuredOutput: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
	}
	unlimited := full
	unlimited.MaxSteps = steps.Unlimited
	for _, d := range []agent.Definition{full, unlimited} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back agent.Definition
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, d) {
			t.Fatalf("round trip:\n%+v\n%+v", back, d)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(b) {
			t.Fatalf("not byte-identical:\n%s\n%s", again, b)
		}
	}
	b, _ := json.Marshal(unlimited)
	if !strings.Contains(string(b), `"max_steps":-1`) || !strings.Contains(string(b), `"schema_version":2`) {
		t.Fatalf("wire form %s", b)
	}
	var missing agent.Definition
	if err := json.Unmarshal([]byte(`{"schema_version":1,"identifier":"x"}`), &missing); err != nil || missing.MaxSteps != 16 {
		t.Fatalf("missing max_steps: %+v %v", missing, err)
	}
	var future agent.Definition
	if err := json.Unmarshal([]byte(`{"schema_version":3,"identifier":"x"}`), &future); !errors.Is(err, agent.ErrUnknownSchemaVersion) {
		t.Fatalf("schema 3: %v", err)
	}
	// "tools": [] is no tools; no "tools", the caller's; version 1 wrote
	// [] for the caller's, and still reads so.
	for wire, none := range map[string]bool{
		`{"schema_version":2,"identifier":"x","tools":[]}`: true,
		`{"schema_version":2,"identifier":"x"}`:            false,
		`{"schema_version":1,"identifier":"x","tools":[]}`: false,
	} {
		var d agent.Definition
		if err := json.Unmarshal([]byte(wire), &d); err != nil || (d.Tools != nil) != none {
			t.Errorf("%s: tools %#v %v", wire, d.Tools, err)
		}
		b, _ := json.Marshal(d)
		var back agent.Definition
		if json.Unmarshal(b, &back) != nil || (back.Tools != nil) != none {
			t.Errorf("%s round trip: %s", wire, b)
		}
	}
}

func TestResolveTools(t *testing.T) {
	t.Parallel()
	available := tool.NewSet(tool.Builtins(tool.Workspace{Root: t.TempDir()})...)
	if set, err := (agent.Definition{}).ToolSet(available); err != nil || set != available {
		t.Fatal("a definition without tools of its own does not get the caller's")
	}
	if set, err := (agent.Definition{Tools: []agent.ToolDescriptor{}}).ToolSet(available); err != nil || len(set.All()) != 0 {
		t.Fatal("tools = [] is not no tools")
	}
	d := agent.Definition{Identifier: "a", Tools: []agent.ToolDescriptor{{Name: "read_file", Timeout: 3}}}
	set, err := d.ResolveTools(available)
	if err != nil || len(set.All()) != 1 || set.Timeout(set.All()[0]).Seconds() != 3 {
		t.Fatal(set, err)
	}
	// The resolved tool is the available one itself: nothing stands
	// between it and the policy, and the policy is shared.
	if _, ok := set.All()[0].(tool.ReadFile); !ok || set.Policy() != available.Policy() {
		t.Fatalf("resolved %T", set.All()[0])
	}
	d.Tools = append(d.Tools, agent.ToolDescriptor{Name: "launch_rockets"})
	if _, err := d.ResolveTools(available); err == nil || !strings.Contains(err.Error(), `"launch_rockets"`) || !strings.Contains(err.Error(), "list_files") {
		t.Fatal(err)
	}
}

func TestParseStructured(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	if v, err := agent.ParseStructured(schema, "```json\n{\"ok\": true}\n```"); err != nil || v.(map[string]any)["ok"] != true {
		t.Fatal(v, err)
	}
	if _, err := agent.ParseStructured(schema, `{"ok": "yes"}`); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatal(err)
	}
	if _, err := agent.ParseStructured(schema, "sure! here it is"); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatal(err)
	}
	if _, err := agent.CompileSchema(json.RawMessage(`{"type": 12}`)); err == nil {
		t.Fatal("a bad schema compiled")
	}
}
