package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/internal/lazyre"
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

// Choice builds a string property that must be one of names (which
// server, skill or sub-agent).
func Choice(description string, names []string) *Schema {
	s := &Schema{Type: "string", Description: description, Enum: []any{}}
	for _, n := range names {
		s.Enum = append(s.Enum, n)
	}
	return s
}

// CheckArgs checks args against schema with a JSON Schema validator
// (google/jsonschema-go): a JSON object, required keys, types, enums,
// items. Unknown keys are allowed (models add them) and a null counts as
// not given (models send null for optional parameters). The error names
// what is wrong so the model can fix its call.
func CheckArgs(schema, args json.RawMessage) error {
	var obj map[string]any
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		if !json.Valid(args) {
			return fmt.Errorf("arguments are not valid JSON (%s)", clip.String(string(args), 80))
		}
		return fmt.Errorf("arguments must be a JSON object, got %s", clip.String(string(args), 80))
	}
	if len(schema) == 0 {
		return nil
	}
	resolved, err := compiled(schema)
	if err != nil {
		return nil // a tool's own schema that does not compile checks nothing
	}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
		}
	}
	if err := resolved.Validate(obj); err != nil {
		return explain(err)
	}
	return nil
}

// schemas caches resolved schemas by their text: a tool's schema does not
// change, and resolving one per call would cost more than the check.
var schemas sync.Map // string -> *jsonschema.Resolved

func compiled(schema json.RawMessage) (*jsonschema.Resolved, error) {
	if r, ok := schemas.Load(string(schema)); ok {
		return r.(*jsonschema.Resolved), nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	schemas.Store(string(schema), r)
	return r, nil
}

var (
	missingRe = lazyre.New(`required: missing properties: \["([^"]*)"`)
	propRe    = lazyre.New(`validating /properties/([^:/]+)`)
	typeRe    = lazyre.New(`has type "([^"]+)", want "([^"]+)"`)
)

// explain rewrites the validator's error in the words a model acts on:
// which parameter, and what it must be.
func explain(err error) error {
	msg := err.Error()
	if m := missingRe().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("missing required parameter %q", m[1])
	}
	param := ""
	if ms := propRe().FindAllStringSubmatch(msg, -1); len(ms) > 0 {
		param = ms[0][1]
	}
	if m := typeRe().FindStringSubmatch(msg); m != nil && param != "" {
		return fmt.Errorf("parameter %q must be %s, got %s", param, m[2], m[1])
	}
	reason := msg[strings.LastIndex(msg, ": ")+2:]
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			reason = msg[i+j+2:]
		}
	}
	if param != "" {
		return fmt.Errorf("parameter %q: %s", param, reason)
	}
	return errors.New(reason)
}
