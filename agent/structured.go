package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// CompileSchema checks that schema is a usable JSON Schema.
func CompileSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the output schema is not a valid JSON Schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the output schema is not a valid JSON Schema: %w", err)
	}
	return r, nil
}

// ParseStructured reads a final answer as JSON (a ```json fence around it
// is tolerated) and validates it against schema.
func ParseStructured(schema json.RawMessage, answer string) (any, error) {
	s, err := CompileSchema(schema)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(answer)
	if strings.HasPrefix(text, "```") {
		text = strings.TrimPrefix(text, "```json")
		text = strings.TrimPrefix(text, "```")
		text = strings.TrimSuffix(strings.TrimSpace(text), "```")
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return nil, fmt.Errorf("the answer does not match the schema: %w", err)
	}
	return v, nil
}
