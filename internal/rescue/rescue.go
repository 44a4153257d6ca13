// Package rescue finds tool calls that a model wrote as text instead of
// sending them as tool_calls, in the formats open models use: Hermes/Qwen
// <tool_call>{…}</tool_call>, Mistral [TOOL_CALLS][…] (and
// [TOOL_CALLS]name[ARGS]{…}), Llama 3 <|python_tag|>{…} and
// {"name": …, "parameters": …}, and an answer that is exactly one JSON call
// (bare or in a ```json fence). It is deterministic and knows nothing of
// the tools: the caller says which names exist and which arguments are
// valid, and a text that holds anything else stays text.
package rescue

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/chatrepl/chat/internal/lazyre"
)

// Call is a call found in text.
type Call struct {
	Name      string
	Arguments string // a JSON object
}

// Found is what Parse found: the calls, the text around them, and the
// format's name ("hermes", "mistral", "llama3", "json").
type Found struct {
	Calls  []Call
	Rest   string
	Format string
}

// Valid reports whether a call may be rescued: its tool was offered and
// its arguments fit the tool's schema.
type Valid func(name string, arguments json.RawMessage) bool

// Markers start a call inside a text; Holdback holds text from them on.
var markers = []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>"}

var (
	hermesBlock = lazyre.New(`(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|\z)`)
	mistralArgs = lazyre.New(`(?s)\[TOOL_CALLS\]\s*([A-Za-z0-9_.\-]+)\s*\[ARGS\]\s*`)
	fence       = lazyre.New("(?s)\\A```(?:json)?[ \\t]*\\n(.*?)\\n?```\\z")
)

// Parse finds the calls in text. It returns false unless every call it
// finds is well formed and valid: a text that merely mentions JSON, names
// a tool that was not offered, or has invalid arguments is left alone.
func Parse(text string, valid Valid) (Found, bool) {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.Contains(text, "<tool_call>"):
		return hermes(text, valid)
	case strings.Contains(text, "[TOOL_CALLS]"):
		return mistral(text, valid)
	case strings.Contains(text, "<|python_tag|>"):
		before, after, _ := strings.Cut(text, "<|python_tag|>")
		calls, ok := objects(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), "<|eom_id|>")), valid)
		return Found{Calls: calls, Rest: strings.TrimSpace(before), Format: "llama3"}, ok
	case strings.HasPrefix(trimmed, "```"):
		m := fence().FindStringSubmatch(trimmed)
		if m == nil {
			return Found{}, false
		}
		calls, ok := objects(strings.TrimSpace(m[1]), valid)
		return Found{Calls: calls, Format: "json"}, ok
	case strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[{"):
		calls, ok := objects(trimmed, valid)
		format := "json"
		if ok && strings.Contains(trimmed, `"parameters"`) {
			format = "llama3"
		}
		return Found{Calls: calls, Format: format}, ok
	}
	return Found{}, false
}

func hermes(text string, valid Valid) (Found, bool) {
	var calls []Call
	for _, m := range hermesBlock().FindAllStringSubmatch(text, -1) {
		c, ok := object([]byte(m[1]), valid)
		if !ok {
			return Found{}, false
		}
		calls = append(calls, c)
	}
	rest := hermesBlock().ReplaceAllString(text, "")
	return Found{Calls: calls, Rest: strings.TrimSpace(rest), Format: "hermes"}, len(calls) > 0
}

func mistral(text string, valid Valid) (Found, bool) {
	before, after, _ := strings.Cut(text, "[TOOL_CALLS]")
	found := Found{Rest: strings.TrimSpace(before), Format: "mistral"}
	if mistralArgs().MatchString("[TOOL_CALLS]" + after) {
		// [TOOL_CALLS]name[ARGS]{…}, repeated.
		rest := "[TOOL_CALLS]" + after
		for rest != "" {
			m := mistralArgs().FindStringSubmatchIndex(rest)
			if m == nil || m[0] != 0 {
				return Found{}, false
			}
			name := rest[m[2]:m[3]]
			dec := json.NewDecoder(strings.NewReader(rest[m[1]:]))
			var args json.RawMessage
			if dec.Decode(&args) != nil || !isObject(args) || !valid(name, args) {
				return Found{}, false
			}
			found.Calls = append(found.Calls, Call{Name: name, Arguments: compact(args)})
			rest = strings.TrimSpace(rest[m[1]+int(dec.InputOffset()):])
		}
		return found, len(found.Calls) > 0
	}
	calls, ok := objects(strings.TrimSpace(after), valid)
	found.Calls = calls
	return found, ok
}

// objects reads exactly one call object, an array of them, or several
// separated by ';' (Llama 3's parallel form), and nothing else.
func objects(s string, valid Valid) ([]Call, bool) {
	s = strings.TrimSpace(s)
	var raws []json.RawMessage
	switch {
	case strings.HasPrefix(s, "["):
		if json.Unmarshal([]byte(s), &raws) != nil {
			return nil, false
		}
	default:
		for _, part := range strings.Split(s, ";") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			var raw json.RawMessage
			if json.Unmarshal([]byte(part), &raw) != nil {
				return nil, false
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 {
		return nil, false
	}
	var calls []Call
	for _, raw := range raws {
		c, ok := object(raw, valid)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

// object reads {"name": …, "arguments"|"parameters": {…} or "{…}"}, with
// no other keys but an id or a type.
func object(raw []byte, valid Valid) (Call, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return Call{}, false
	}
	var name string
	if json.Unmarshal(fields["name"], &name) != nil || name == "" {
		return Call{}, false
	}
	args, ok := fields["arguments"]
	if !ok {
		args, ok = fields["parameters"]
	}
	for k := range fields {
		switch k {
		case "name", "arguments", "parameters", "id", "type":
		default:
			return Call{}, false
		}
	}
	if !ok {
		args = json.RawMessage("{}")
	}
	var inner string
	if json.Unmarshal(args, &inner) == nil { // arguments as a JSON string
		args = json.RawMessage(inner)
	}
	if !isObject(args) || !valid(name, args) {
		return Call{}, false
	}
	return Call{Name: name, Arguments: compact(args)}, true
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
