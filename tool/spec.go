package tool

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// builtinsJSON is the one place the built-in tools' names, descriptions,
// parameter schemas and timeouts are written: data a reviewer reads in one
// sitting, and what the model is shown.
//
//go:embed builtins.json
var builtinsJSON []byte

type toolSpec struct {
	// ChangesFiles: a call may change files in the workspace.
	ChangesFiles bool   `json:"changes_files"`
	Description  string `json:"description"`
	// Brief is the description offered when the context window is small
	// ("": the tool is not offered then); BriefDrop are parameters left
	// out of the brief schema (which has no descriptions).
	Brief      string          `json:"brief"`
	BriefDrop  []string        `json:"brief_drop"`
	Timeout    string          `json:"timeout"`
	Parameters json.RawMessage `json:"parameters"`
	timeout    time.Duration
	brief      json.RawMessage
}

// specs are read on first use: a run pays for parsing them when it offers
// tools, not in package initialisation.
var specs = sync.OnceValue(func() map[string]toolSpec { return loadSpecs(builtinsJSON) })

func loadSpecs(data []byte) map[string]toolSpec {
	var m map[string]toolSpec
	if err := json.Unmarshal(data, &m); err != nil {
		panic(fmt.Sprintf("tool/builtins.json: %v", err))
	}
	for name, s := range m {
		d, err := time.ParseDuration(s.Timeout)
		if err != nil {
			panic(fmt.Sprintf("tool/builtins.json: %s: timeout: %v", name, err))
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, s.Parameters); err != nil {
			panic(fmt.Sprintf("tool/builtins.json: %s: parameters: %v", name, err))
		}
		s.timeout, s.Parameters = d, compact.Bytes()
		if s.brief, err = briefSchema(s.Parameters, s.BriefDrop); err != nil {
			panic(fmt.Sprintf("tool/builtins.json: %s: parameters: %v", name, err))
		}
		m[name] = s
	}
	return m
}

// named is a built-in tool's name, as a type: described[N] reads the
// tool's entry in builtins.json by it.
type named interface{ toolName() string }

// described gives a built-in tool its Name, Description, Parameters and
// Timeout from builtins.json. Its zero value is ready.
type described[N named] struct{}

func (described[N]) Name() string {
	var n N
	return n.toolName()
}

func (d described[N]) Description() string         { return specs()[d.Name()].Description }
func (d described[N]) Parameters() json.RawMessage { return specs()[d.Name()].Parameters }
func (d described[N]) Timeout() time.Duration      { return specs()[d.Name()].timeout }
func (d described[N]) ChangesFiles() bool          { return specs()[d.Name()].ChangesFiles }

// Brief is the tool's short form, for a small context window.
func (d described[N]) Brief() (string, json.RawMessage, bool) {
	s := specs()[d.Name()]
	return s.Brief, s.brief, s.Brief != ""
}

// briefSchema is schema without its descriptions and without the
// parameters drop names: what a small window can afford, the names and
// types still telling the model what to send.
func briefSchema(schema json.RawMessage, drop []string) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return nil, err
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for _, name := range props {
					if p, ok := name.(map[string]any); ok {
						delete(p, "description")
					}
				}
			}
			for _, v := range x {
				strip(v)
			}
		case []any:
			for _, v := range x {
				strip(v)
			}
		}
	}
	strip(v)
	if top, ok := v.(map[string]any); ok && len(drop) > 0 {
		if props, ok := top["properties"].(map[string]any); ok {
			for _, name := range drop {
				delete(props, name)
			}
		}
	}
	return json.Marshal(v)
}

// The names of the built-in tools.
type (
	readFileName  struct{}
	listFilesName struct{}
	grepName      struct{}
	fetchURLName  struct{}
	writeFileName struct{}
	editFileName  struct{}
	runShellName  struct{}
)

func (readFileName) toolName() string  { return "read_file" }
func (listFilesName) toolName() string { return "list_files" }
func (grepName) toolName() string      { return "grep" }
func (fetchURLName) toolName() string  { return "fetch_url" }
func (writeFileName) toolName() string { return "write_file" }
func (editFileName) toolName() string  { return "edit_file" }

// What a reading tool says it would do outside the working directory.
func (readFileName) verb() string     { return "read" }
func (listFilesName) verb() string    { return "list" }
func (grepName) verb() string         { return "search" }
func (runShellName) toolName() string { return "run_shell" }
