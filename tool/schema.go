package tool

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/chatrepl/chat/internal/clip"
)

// Schema is the subset of JSON Schema our tools use to describe their
// parameters: an object with typed properties, some required.
type Schema struct {
	Type        string             `json:"type"`
	Description string             `json:"description,omitempty"`
	Properties  map[string]*Schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
	Items       *Schema            `json:"items,omitempty"`
	Enum        []any              `json:"enum,omitempty"`
}

// Object builds an object schema.
func Object(required []string, props map[string]*Schema) json.RawMessage {
	b, _ := json.Marshal(Schema{Type: "object", Properties: props, Required: required})
	return b
}

// Prop builds a property schema.
func Prop(typ, description string) *Schema { return &Schema{Type: typ, Description: description} }

// CheckArgs checks args against schema: a JSON object, required keys
// present, known keys of the declared type. Unknown keys are allowed (models
// add them); the error names what is wrong so the model can fix its call.
func CheckArgs(schema, args json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		if !json.Valid(args) {
			return fmt.Errorf("arguments are not valid JSON (%s)", clip.String(string(args), 80))
		}
		return fmt.Errorf("arguments must be a JSON object, got %s", clip.String(string(args), 80))
	}
	var s Schema
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	for _, k := range s.Required {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("missing required parameter %q", k)
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Properties[k]
		if p == nil || p.Type == "" {
			continue
		}
		if got := jsonType(obj[k]); !typeMatches(p.Type, got, obj[k]) {
			return fmt.Errorf("parameter %q must be %s, got %s", k, p.Type, got)
		}
	}
	return nil
}

func typeMatches(want, got string, raw json.RawMessage) bool {
	switch {
	case want == got, got == "null":
		return true
	case want == "integer" && got == "number":
		var f float64
		return json.Unmarshal(raw, &f) == nil && f == float64(int64(f))
	}
	return false
}

func jsonType(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid"
	}
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
