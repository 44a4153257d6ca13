package rescue

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// offered plays the caller: get_weather needs a location, read_file a path.
func offered(name string, args json.RawMessage) bool {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	switch name {
	case "get_weather":
		_, ok := m["location"].(string)
		return ok
	case "read_file":
		_, ok := m["path"].(string)
		return ok
	}
	return false
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, format, calls, rest string
	}{
		{"hermes (qwen3 template)", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}\n</tool_call>", "hermes", `get_weather{"location":"Paris"}`, ""},
		{"hermes after text, two calls", "Let me look.\n<tool_call>\n{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n</tool_call>\n<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}</tool_call>", "hermes", `read_file{"path":"a"} read_file{"path":"b"}`, "Let me look."},
		{"hermes unclosed at the end", "<tool_call>\n{\"name\":\"get_weather\",\"arguments\":{\"location\":\"Oslo\"}}", "hermes", `get_weather{"location":"Oslo"}`, ""},
		{"hermes arguments as a string", `<tool_call>{"name":"get_weather","arguments":"{\"location\":\"Rome\"}"}</tool_call>`, "hermes", `get_weather{"location":"Rome"}`, ""},
		{"mistral array", `[TOOL_CALLS][{"name": "get_weather", "arguments": {"location": "Paris"}}]`, "mistral", `get_weather{"location":"Paris"}`, ""},
		{"mistral v11", `[TOOL_CALLS]get_weather[ARGS]{"location": "Lyon"}`, "mistral", `get_weather{"location":"Lyon"}`, ""},
		{"llama3 python_tag", `<|python_tag|>{"name": "get_weather", "parameters": {"location": "Nice"}}<|eom_id|>`, "llama3", `get_weather{"location":"Nice"}`, ""},
		{"llama3 bare", `{"name": "get_weather", "parameters": {"location": "Metz"}}`, "llama3", `get_weather{"location":"Metz"}`, ""},
		{"bare json", ` {"name": "read_file", "arguments": {"path": "go.mod"}} `, "json", `read_file{"path":"go.mod"}`, ""},
		{"fenced json", "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}\n```", "json", `read_file{"path":"x"}`, ""},
	}
	for _, tt := range tests {
		f, ok := Parse(tt.text, offered)
		if !ok {
			t.Errorf("%s: not rescued", tt.name)
			continue
		}
		var got []string
		for _, c := range f.Calls {
			got = append(got, c.Name+c.Arguments)
		}
		if strings.Join(got, " ") != tt.calls || f.Format != tt.format || f.Rest != tt.rest {
			t.Errorf("%s: %v %q %q", tt.name, got, f.Format, f.Rest)
		}
	}
}

// TestParseLeavesText: what is not exactly a valid call of an offered
// tool stays text.
func TestParseLeavesText(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"The config is JSON: {\"name\": \"x\", \"arguments\": {}} and so on.",
		`{"name": "delete_everything", "arguments": {}}`,          // not offered
		`{"name": "get_weather", "arguments": {"city": "Paris"}}`, // invalid arguments
		`{"name": "get_weather", "arguments": {"location": "Paris"}, "note": "x"}`,
		"```json\n{\"location\": \"Paris\"}\n```",
		"```go\nfunc main() {}\n```",
		"<tool_call>\n{not json}\n</tool_call>",
		"<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"location\":\"A\"}}</tool_call><tool_call>{\"name\":\"nope\",\"arguments\":{}}</tool_call>",
		`[TOOL_CALLS]get_weather[ARGS]{"location": "Lyon"} trailing words`,
		`{"name": "get_weather", "arguments": {"location": "Paris"}} and then more`,
		"Use <tool_call> tags to call tools.",
		`[1, 2, 3]`,
	} {
		if f, ok := Parse(text, offered); ok {
			t.Errorf("rescued %q: %+v", text, f)
		}
	}
}

// TestParseRecordedTemplate: the Qwen3 template llama-server's recordings
// were made with writes a call exactly this way.
func TestParseRecordedTemplate(t *testing.T) {
	t.Parallel()
	tpl, err := os.ReadFile(filepath.Join("..", "..", "testdata", "llama-server", "qwen3-chat-template.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tpl), "<tool_call>\\n") || !strings.Contains(string(tpl), "</tool_call>") {
		t.Fatalf("the template no longer writes <tool_call> blocks")
	}
	text := "<tool_call>\n" + `{"name": "get_weather", "arguments": {"location": "Paris"}}` + "\n</tool_call>"
	if f, ok := Parse(text, offered); !ok || f.Calls[0].Arguments != `{"location":"Paris"}` {
		t.Errorf("%+v %v", f, ok)
	}
}

// TestHoldback: text streams through until a marker; a whole answer that
// starts like JSON is held; a partial marker at the end waits.
func TestHoldback(t *testing.T) {
	t.Parallel()
	var h Holdback
	var shown strings.Builder
	for _, p := range []string{"Let me ", "check.\n<tool", "_call>\n{\"name\"", ":\"x\"}</tool_call>"} {
		shown.WriteString(h.Add(p))
	}
	if shown.String() != "Let me check.\n" || !strings.HasPrefix(h.Held(), "<tool_call>") {
		t.Errorf("shown %q held %q", shown.String(), h.Held())
	}
	var j Holdback
	if out := j.Add("  {\"name\""); out != "" || j.Add(": 1}") != "" || j.Held() != "  {\"name\": 1}" {
		t.Errorf("a JSON answer was shown while it streamed")
	}
	var p Holdback
	out := p.Add("see [")
	out += p.Add("the docs](x)")
	if out != "see [the docs](x)" || p.Held() != "" {
		t.Errorf("a link: %q held %q", out, p.Held())
	}
	var f Holdback
	out = f.Add("``")
	out += f.Add("` is a fence")
	if out != "" || f.Held() != "``` is a fence" {
		t.Errorf("a fence start: %q held %q", out, f.Held())
	}
}

// TestHoldbackAnySplit: whatever the pieces, what is shown stops right
// before a marker and the rest is held; with no marker all is shown.
func TestHoldbackAnySplit(t *testing.T) {
	t.Parallel()
	for _, m := range markers {
		for _, text := range []string{"plain words [a link](x) a < b " + m + `{"name":"x"}`, "tok tok tok tok", "ends with half a marker " + m[:len(m)-1]} {
			for size := 1; size <= len(m)+1; size++ {
				var h Holdback
				var shown strings.Builder
				for i := 0; i < len(text); i += size {
					shown.WriteString(h.Add(text[i:min(len(text), i+size)]))
				}
				before, _, found := strings.Cut(text, m)
				if !found {
					before = text
					if strings.HasSuffix(text, m[:len(m)-1]) {
						before = strings.TrimSuffix(text, m[:len(m)-1])
					}
				}
				if shown.String() != before || shown.String()+h.Held() != text {
					t.Fatalf("pieces of %d of %q: shown %q held %q", size, text, shown.String(), h.Held())
				}
			}
		}
	}
}
