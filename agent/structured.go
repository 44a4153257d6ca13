package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileSchema checks that schema is a usable JSON Schema.
func CompileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the output schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output.schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("output.schema.json")
	if err != nil {
		return nil, fmt.Errorf("the output schema is not a valid JSON Schema: %w", err)
	}
	return s, nil
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
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return nil, fmt.Errorf("the answer does not match the schema: %w", err)
	}
	return v, nil
}
