package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/atomicfile"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/tool"
)

// Definitions returns every named definition: those imported into
// agentsDir and the config's; the config file wins over an imported file
// of the same name.
func Definitions(cfg config.Config, agentsDir string) (map[string]agent.Definition, error) {
	out := map[string]agent.Definition{}
	files, _ := filepath.Glob(filepath.Join(agentsDir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var def agent.Definition
		if err := json.Unmarshal(b, &def); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = def
	}
	for name, ac := range cfg.Agents {
		def, err := fromConfig(name, ac, filepath.Dir(agentsDir))
		if err != nil {
			return nil, err
		}
		out[name] = def
	}
	return out, nil
}

// AgentSources says where each named agent comes from: "config",
// "imported", or "config (shadows the imported one)" when both have it.
func AgentSources(cfg config.Config, agentsDir string) map[string]string {
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(agentsDir, "*.json"))
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = "imported"
	}
	for name := range cfg.Agents {
		if out[name] == "imported" {
			out[name] = "config (shadows the imported one)"
		} else {
			out[name] = "config"
		}
	}
	return out
}

func fromConfig(name string, ac config.AgentConfig, dir string) (agent.Definition, error) {
	def := agent.Definition{Identifier: name, Description: ac.Description, Model: ac.Model, Instructions: ac.Instructions,
		Options: agent.ModelOptions{Temperature: ac.Temperature, TopP: ac.TopP, MaxTokens: ac.MaxTokens}, Isolation: ac.Isolation}
	if err := agent.CheckIsolation(ac.Isolation); err != nil {
		return def, fmt.Errorf("config agents.%s: %w", name, err)
	}
	budget, err := agent.StepsFromWire(ac.MaxSteps)
	if err != nil {
		return def, fmt.Errorf("config agents.%s: %w", name, err)
	}
	def.MaxSteps = budget
	if ac.Tools != nil { // tools = [] is no tools; no key, the caller's
		def.Tools = []agent.ToolDescriptor{}
		for _, t := range ac.Tools {
			def.Tools = append(def.Tools, agent.ToolDescriptor{Name: t})
		}
	}
	if ac.StructuredOutput != "" {
		p := ac.StructuredOutput
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return def, fmt.Errorf("config agents.%s: structured_output: %w", name, err)
		}
		if _, err := agent.CompileSchema(b); err != nil {
			return def, fmt.Errorf("config agents.%s: %w", name, err)
		}
		def.StructuredOutput = b
	}
	return def, nil
}

// Named is the definition called name among defs.
func Named(defs map[string]agent.Definition, name string) (agent.Definition, error) {
	def, ok := defs[name]
	if !ok {
		return def, fmt.Errorf("no agent named %q; chat agents list shows them", name)
	}
	return def, nil
}

// applyPersona makes the agent the persona the spec names (or, with
// none named, the one a resumed session was made with), then lets what
// was asked for explicitly win over it.
func (r *Run) applyPersona(snapshot json.RawMessage) (string, error) {
	spec, cfg, defs, a, available := r.spec, r.cfg, r.ext.defs, r.agent, r.tools
	var def agent.Definition
	name := spec.Persona
	switch {
	case name != "":
		var err error
		if def, err = Named(defs, name); err != nil {
			return "", err
		}
		if err := mayLead(cfg, def); err != nil {
			return "", err
		}
	case len(snapshot) > 0:
		if err := json.Unmarshal(snapshot, &def); err != nil {
			return "", fmt.Errorf("the session's agent: %w", err)
		}
		name = def.Identifier
		def.Tools = stillHere(spec.Env.Stderr, def, available)
	default:
		return "", nil
	}
	if err := a.Apply(def, available); err != nil {
		return "", err
	}
	if spec.Model != nil {
		a.SetModel(*spec.Model)
	}
	if spec.System != nil {
		a.SetSystem(*spec.System)
	}
	if spec.MaxSteps != nil {
		b, err := steps.Parse(*spec.MaxSteps)
		if err != nil {
			return "", err
		}
		a.StepLimit().SetMax(b.Max())
	}
	return name, nil
}

// mayLead refuses a persona as the main agent when it uses a tool the
// config keeps for sub-agents.
func mayLead(cfg config.Config, def agent.Definition) error {
	for _, t := range def.Tools {
		if slices.Contains(cfg.Tools.SubAgentsOnly, t.Name) {
			return fmt.Errorf("agent %s uses %s, which [tools] sub_agents_only keeps for sub-agents: it can be handed tasks, not be the main agent", def.Identifier, t.Name)
		}
	}
	return nil
}

// stillHere is the tools a session's agent is resumed with. The default
// agent has whatever this run has (skills, personas, MCP servers and the
// tools the config withholds come and go between runs); a named agent
// keeps its list, less what this run no longer has, which is said.
func stillHere(stderr io.Writer, def agent.Definition, available *tool.Set) []agent.ToolDescriptor {
	if def.Identifier == DefaultAgentName {
		return nil
	}
	var kept []agent.ToolDescriptor
	for _, t := range def.Tools {
		if _, ok := available.Lookup(t.Name); ok {
			kept = append(kept, t)
			continue
		}
		fmt.Fprintf(stderr, "the session's agent %s used the tool %s, which this run does not have; going on without it\n", def.Identifier, t.Name)
	}
	if len(kept) == 0 && len(def.Tools) > 0 {
		kept = []agent.ToolDescriptor{} // none left is not "all of them"
	}
	return kept
}

// ImportAgent checks a definition's JSON form (the tools it names exist
// here, its schema compiles) and writes it into agentsDir as NAME.json;
// one of that name is replaced only with force. It returns the definition
// and where it went.
func ImportAgent(env Env, data []byte, agentsDir string, force bool) (agent.Definition, string, error) {
	var def agent.Definition
	if err := json.Unmarshal(data, &def); err != nil {
		return def, "", err
	}
	available, err := BuiltinTools(env, config.Config{})
	if err != nil {
		return def, "", err
	}
	if _, err := def.ResolveTools(available); err != nil {
		return def, "", err
	}
	if len(def.StructuredOutput) > 0 {
		if _, err := agent.CompileSchema(def.StructuredOutput); err != nil {
			return def, "", err
		}
	}
	path := filepath.Join(agentsDir, def.Identifier+".json")
	if _, err := os.Stat(path); err == nil && !force {
		return def, "", fmt.Errorf("%s exists; --force replaces it", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return def, "", err
	}
	out, _ := json.MarshalIndent(def, "", "  ")
	if err := os.MkdirAll(agentsDir, 0o700); err != nil {
		return def, "", err
	}
	return def, path, atomicfile.Write(path, append(out, '\n'), 0o600)
}

// ExportAgent is def's JSON form with its tools described in full (their
// schemas), as another chat imports it.
func ExportAgent(env Env, def agent.Definition) (agent.Definition, error) {
	available, err := BuiltinTools(env, config.Config{})
	if err != nil {
		return def, err
	}
	if set, err := def.ToolSet(available); err == nil {
		def.Tools = agent.Describe(set.All())
	}
	return def, nil
}
