package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type fakeTool struct {
	Unreviewed
	run     func(ctx context.Context, args json.RawMessage) (string, error)
	timeout time.Duration
}

func (fakeTool) Name() string        { return "fake" }
func (fakeTool) Description() string { return "test" }
func (fakeTool) Parameters() json.RawMessage {
	return Object([]string{"n"}, map[string]*Schema{"n": Prop("integer", "")})
}
func (f fakeTool) Timeout() time.Duration { return f.timeout }
func (f fakeTool) Run(ctx context.Context, a json.RawMessage) (string, error) {
	return f.run(ctx, a)
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, json.RawMessage) (string, error) { return "done", nil }
	tests := []struct {
		name    string
		tool    fakeTool
		call    string
		args    string
		errType string
		text    string
	}{
		{"ok", fakeTool{run: ok}, "fake", `{"n": 1}`, "", "done"},
		{"unknown tool", fakeTool{run: ok}, "nope", `{}`, ErrTypeUnknownTool, "available tools are: fake"},
		{"not json", fakeTool{run: ok}, "fake", `{"n": 1`, ErrTypeInvalidArguments, "not valid JSON"},
		{"not an object", fakeTool{run: ok}, "fake", `[1]`, ErrTypeInvalidArguments, "must be a JSON object"},
		{"missing required", fakeTool{run: ok}, "fake", `{}`, ErrTypeInvalidArguments, `missing required parameter "n"`},
		{"wrong type", fakeTool{run: ok}, "fake", `{"n":"x"}`, ErrTypeInvalidArguments, `"n" must be integer`},
		{"panic", fakeTool{run: func(context.Context, json.RawMessage) (string, error) { panic("boom") }}, "fake", `{"n":1}`, ErrTypeExecution, "crashed: boom"},
		{"error", fakeTool{run: func(context.Context, json.RawMessage) (string, error) { return "", errors.New("disk on fire") }}, "fake", `{"n":1}`, ErrTypeExecution, "disk on fire"},
		{"timeout", fakeTool{timeout: 10 * time.Millisecond, run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}}, "fake", `{"n":1}`, ErrTypeTimeout, "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewSet(tt.tool).Dispatch(context.Background(), tt.call, tt.args)
			if r.ErrType != tt.errType || !strings.Contains(r.Content, tt.text) || (r.Err != nil) != (tt.errType != "") {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestFileTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "bin.dat"), []byte("x\x00y"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "sub", ".git"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sub", "b.go"), []byte("package b\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("0123456789\n", 1000)), 0o644))
	outside := t.TempDir()
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "escape")))

	set := NewSet(Builtins(Workspace{Root: dir, MaxOutput: 2000})...)
	tests := []struct {
		name, tool, args, want string
		fails                  bool
	}{
		{"read", "read_file", `{"path":"a.txt"}`, "     1\tone\n     2\ttwo\n     3\tthree\n", false},
		{"read slice", "read_file", `{"path":"a.txt","offset":2,"limit":1}`, "     2\ttwo\n[more lines follow; read on with offset 3]\n", false},
		{"missing", "read_file", `{"path":"nope.txt"}`, "does not exist", true},
		{"binary", "read_file", `{"path":"bin.dat"}`, "binary file", true},
		{"dotdot", "read_file", `{"path":"../x"}`, "needs the user's approval", true},
		{"symlink escape", "read_file", `{"path":"escape/secret"}`, "needs the user's approval", true},
		{"truncated", "read_file", `{"path":"big.txt"}`, "[output truncated:", false},
		{"list", "list_files", `{}`, "a.txt\nbig.txt\nbin.dat\nescape\nsub/\nsub/b.go", false},
		{"list outside", "list_files", `{"path":"/"}`, "needs the user's approval", true},
		{"glob", "list_files", `{"glob":"*.go"}`, "sub/b.go", false},
		{"list a file", "list_files", `{"path":"a.txt"}`, "is a file", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := set.Dispatch(context.Background(), tt.tool, tt.args)
			if (r.Err != nil) != tt.fails || !strings.Contains(r.Content, tt.want) {
				t.Fatalf("got %q (err %v)", r.Content, r.Err)
			}
			if tt.name == "list" && r.Content != tt.want {
				t.Fatalf("list = %q", r.Content)
			}
		})
	}
}

// TestCheckArgsEnumsAndItems: the whole schema is checked, enums and
// array items included (the hand-written checker ignored both).
func TestCheckArgsEnumsAndItems(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"paths":{"type":"array","items":{"type":"string"}},"n":{"type":"integer"}},"required":["mode"]}`)
	tests := map[string]string{
		`{"mode":"fast","paths":["a"],"n":2}`: "",
		`{"mode":"fast","n":null}`:            "",
		`{"mode":"fast","extra":1}`:           "",
		`{"mode":"medium"}`:                   `parameter "mode"`,
		`{"mode":"fast","paths":[1]}`:         `parameter "paths"`,
		`{"mode":"fast","n":1.5}`:             `parameter "n" must be integer`,
		`{}`:                                  `missing required parameter "mode"`,
	}
	for args, want := range tests {
		err := CheckArgs(schema, json.RawMessage(args))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

// TestBuiltinsSpec: builtins.json describes exactly the built-in tools,
// each with a description, a timeout and a schema that compiles.
func TestBuiltinsSpec(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, tl := range Builtins(Workspace{Jobs: &Jobs{}}) {
		seen[tl.Name()] = true
		if tl.Description() == "" || tl.Timeout() <= 0 {
			t.Errorf("%s: description %q timeout %s", tl.Name(), tl.Description(), tl.Timeout())
		}
		if _, err := compiled(tl.Parameters()); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
	for name := range specs() {
		if !seen[name] {
			t.Errorf("builtins.json describes %s, which no built-in tool is", name)
		}
	}
	if len(seen) != len(specs()) {
		t.Errorf("%d tools, %d specs", len(seen), len(specs()))
	}
}

// TestWithheldStaysWithheld: a set made without sub_agents_only tools
// never gains them later, an MCP server's tools (NAME__tool, patterns)
// included, and sets derived from it keep that.
func TestWithheldStaysWithheld(t *testing.T) {
	t.Parallel()
	full := NewSet(echoTool{name: "fetch_url"}, echoTool{name: "read_file"})
	main := full.Without("fetch_url", "web__fetch", "gh__*")
	main.Add(echoTool{name: "web__fetch"})
	main.Add(echoTool{name: "gh__create_issue"})
	main.Add(echoTool{name: "web__search"})
	derived := main.Empty()
	derived.Add(echoTool{name: "gh__delete_repo"})
	for _, name := range []string{"fetch_url", "web__fetch", "gh__create_issue"} {
		if _, ok := main.Lookup(name); ok {
			t.Errorf("%s reached the main agent's set", name)
		}
	}
	if _, ok := derived.Lookup("gh__delete_repo"); ok {
		t.Error("a derived set lost what was withheld")
	}
	if _, ok := main.Lookup("web__search"); !ok {
		t.Error("a tool not withheld was not added")
	}
	full.Add(echoTool{name: "gh__x"})
	if _, ok := full.Lookup("gh__x"); !ok {
		t.Error("the full set withheld a tool")
	}
}

// echoTool is a tool with any name.
type echoTool struct {
	Unreviewed
	name string
}

func (e echoTool) Name() string                                       { return e.name }
func (echoTool) Description() string                                  { return "echo" }
func (echoTool) Parameters() json.RawMessage                          { return json.RawMessage(`{"type":"object"}`) }
func (echoTool) Timeout() time.Duration                               { return 0 }
func (echoTool) Run(context.Context, json.RawMessage) (string, error) { return "", nil }
