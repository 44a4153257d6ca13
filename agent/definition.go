package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/tool"
)

// DefinitionSchemaVersion is the version of the JSON form written here.
// Version 2 tells "tools": [] (no tools) from no "tools" (the caller's);
// version 1, still read, wrote [] for both.
const DefinitionSchemaVersion = 2

// ErrUnknownSchemaVersion is a definition from a newer (or unknown) chat.
var ErrUnknownSchemaVersion = errors.New("unknown agent definition schema_version")

// Definition is an agent as plain data: what it is called, which model it
// uses, its instructions, options, step budget, tools and output schema.
// It never holds a key or any other secret.
type Definition struct {
	Identifier string
	// Description says what the persona is for, in the list of sub-agents
	// (empty: the first line of the instructions).
	Description  string
	Model        string
	Instructions string
	Options      ModelOptions
	// MaxSteps is the step budget (JSON -1 is unlimited; a definition
	// without the key gets steps.Default).
	MaxSteps steps.Budget
	// Tools are the definition's own tools: nil gets its caller's (or
	// the run's) set, an empty list none at all. ToolSet applies it.
	Tools []ToolDescriptor
	// StructuredOutput is a JSON Schema the final answer must match.
	StructuredOutput json.RawMessage
	// Isolation is where a sub-agent of this persona edits: IsolationWorktree
	// in a git worktree of its own, "" (or "shared") the caller's tree.
	Isolation string
}

// IsolationWorktree: each task gets a git worktree of its own.
const IsolationWorktree = "worktree"

// CheckIsolation refuses an isolation chat does not know.
func CheckIsolation(s string) error {
	if s != "" && s != "shared" && s != IsolationWorktree {
		return fmt.Errorf("isolation %q: use \"worktree\" or \"shared\"", s)
	}
	return nil
}

// ModelOptions are the sampling options a definition may set.
type ModelOptions struct {
	Temperature *float32 `json:"temperature,omitempty"`
	TopP        *float32 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
}

// ToolDescriptor describes a tool by name; it is resolved against the
// tools this chat has when the definition is used.
type ToolDescriptor struct {
	Name             string          `json:"name"`
	Description      string          `json:"description,omitempty"`
	ParametersSchema json.RawMessage `json:"parameters_schema,omitempty"`
	Timeout          float64         `json:"timeout,omitempty"` // seconds
}

type wireDefinition struct {
	SchemaVersion    int               `json:"schema_version"`
	Identifier       string            `json:"identifier"`
	Description      string            `json:"description,omitempty"`
	Model            string            `json:"model,omitempty"`
	Instructions     string            `json:"instructions,omitempty"`
	ModelOptions     ModelOptions      `json:"model_options"`
	MaxSteps         *int              `json:"max_steps,omitempty"`
	StructuredOutput json.RawMessage   `json:"structured_output,omitempty"`
	Tools            *[]ToolDescriptor `json:"tools,omitempty"`
	Isolation        string            `json:"isolation,omitempty"`
}

// MarshalJSON writes the wire form: schema_version, and -1 for unlimited.
func (d Definition) MarshalJSON() ([]byte, error) {
	max := int(d.MaxSteps)
	if d.MaxSteps == steps.Unlimited {
		max = -1
	}
	var tools *[]ToolDescriptor
	if d.Tools != nil {
		tools = &d.Tools
	}
	return json.Marshal(wireDefinition{
		SchemaVersion: DefinitionSchemaVersion, Identifier: d.Identifier, Description: d.Description, Model: d.Model,
		Instructions: d.Instructions, ModelOptions: d.Options, MaxSteps: &max,
		StructuredOutput: d.StructuredOutput, Tools: tools, Isolation: d.Isolation,
	})
}

// UnmarshalJSON reads the wire form, refusing unknown schema versions.
func (d *Definition) UnmarshalJSON(b []byte) error {
	var w wireDefinition
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.SchemaVersion != DefinitionSchemaVersion && w.SchemaVersion != 1 {
		return fmt.Errorf("%w %d (this chat reads %d); use a newer chat", ErrUnknownSchemaVersion, w.SchemaVersion, DefinitionSchemaVersion)
	}
	if err := CheckIdentifier(w.Identifier); err != nil {
		return err
	}
	max, err := StepsFromWire(w.MaxSteps)
	if err != nil {
		return fmt.Errorf("agent definition %s: %w", w.Identifier, err)
	}
	*d = Definition{Identifier: w.Identifier, Description: w.Description, Model: w.Model, Instructions: w.Instructions, Options: w.ModelOptions,
		MaxSteps: max, StructuredOutput: w.StructuredOutput, Isolation: w.Isolation}
	if err := CheckIsolation(w.Isolation); err != nil {
		return fmt.Errorf("agent definition %s: %w", w.Identifier, err)
	}
	if w.Tools != nil && (len(*w.Tools) > 0 || w.SchemaVersion > 1) {
		d.Tools = append([]ToolDescriptor{}, *w.Tools...)
	}
	if len(d.StructuredOutput) > 0 && !json.Valid(d.StructuredOutput) {
		return fmt.Errorf("agent definition %s: structured_output is not JSON", w.Identifier)
	}
	return nil
}

// CheckIdentifier refuses an identifier that could not be a file name in
// the agents folder (a path, "..", control characters): it names a file
// when an agent is imported.
func CheckIdentifier(id string) error {
	if id == "" {
		return errors.New("agent definition without an identifier")
	}
	if len(id) > 64 || id == "." || id == ".." || strings.HasPrefix(id, ".") {
		return fmt.Errorf("agent identifier %q: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("agent identifier %q: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'", id)
		}
	}
	return nil
}

// StepsFromWire reads a max_steps as written in JSON or the config: a
// missing value is steps.Default.
func StepsFromWire(v *int) (steps.Budget, error) {
	if v == nil {
		return steps.Default, nil
	}
	return steps.Parse(*v)
}

// Describe makes the descriptors of tools, for a definition.
func Describe(tools []tool.Tool) []ToolDescriptor {
	out := make([]ToolDescriptor, 0, len(tools))
	for _, t := range tools {
		out = append(out, ToolDescriptor{Name: t.Name(), Description: t.Description(), ParametersSchema: t.Parameters(), Timeout: t.Timeout().Seconds()})
	}
	return out
}

// ToolSet is the set a definition runs with among available: available
// itself when it names no tools of its own, else its own (none for an
// empty list).
func (d Definition) ToolSet(available *tool.Set) (*tool.Set, error) {
	if d.Tools == nil {
		return available, nil
	}
	return d.ResolveTools(available)
}

// ResolveTools finds each descriptor's tool among the available ones; an
// unknown name is an error that lists what exists.
func (d Definition) ResolveTools(available *tool.Set) (*tool.Set, error) {
	out := available.Empty()
	for _, desc := range d.Tools {
		t, ok := available.Lookup(desc.Name)
		if !ok {
			var names []string
			for _, a := range available.All() {
				names = append(names, a.Name())
			}
			sort.Strings(names)
			return nil, fmt.Errorf("agent %s uses tool %q, which this chat does not have (it has: %s)", d.Identifier, desc.Name, strings.Join(names, ", "))
		}
		out.Add(t)
		// The descriptor's timeout is the set's to apply: wrapping the tool
		// would be a new value between the policy and the tool.
		if desc.Timeout > 0 {
			out.SetTimeout(desc.Name, time.Duration(desc.Timeout*float64(time.Second)))
		}
	}
	return out, nil
}
