package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/tool"
)

// Agent definitions come from the config file ([agents.NAME]) and from
// JSON files imported into $XDG_CONFIG_HOME/chat/agents/.

func agentsDir(d deps, o *rootOptions) string {
	return filepath.Join(filepath.Dir(configPath(d, o)), "agents")
}

// definitions returns every named definition; the config file wins over an
// imported file of the same name.
func definitions(d deps, o *rootOptions, cfg config.Config) (map[string]agent.Definition, error) {
	out := map[string]agent.Definition{}
	files, _ := filepath.Glob(filepath.Join(agentsDir(d, o), "*.json"))
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
		def, err := fromConfig(name, ac, filepath.Dir(configPath(d, o)))
		if err != nil {
			return nil, err
		}
		out[name] = def
	}
	return out, nil
}

// agentSources says where each named agent comes from: "config",
// "imported", or "config (shadows the imported one)" when both have it.
func agentSources(d deps, o *rootOptions, cfg config.Config) map[string]string {
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(agentsDir(d, o), "*.json"))
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
		Options: agent.ModelOptions{Temperature: ac.Temperature, TopP: ac.TopP, MaxTokens: ac.MaxTokens}}
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

// applyAgent makes a the named definition (or, with none named, the one a
// resumed session was made with), then lets explicit flags win over it.
func applyAgent(cmdChanged func(string) bool, d deps, o *rootOptions, cfg config.Config, defs map[string]agent.Definition,
	a *agent.Agent, available *tool.Set, snapshot json.RawMessage) (string, error) {
	var def agent.Definition
	name := o.agent
	switch {
	case name != "":
		var ok bool
		if def, ok = defs[name]; !ok {
			return "", fmt.Errorf("no agent named %q; chat agents list shows them", name)
		}
		if err := mayLead(cfg, def); err != nil {
			return "", err
		}
	case len(snapshot) > 0:
		if err := json.Unmarshal(snapshot, &def); err != nil {
			return "", fmt.Errorf("the session's agent: %w", err)
		}
		name = def.Identifier
		def.Tools = stillHere(d, def, available)
	default:
		return "", nil
	}
	if err := a.Apply(def, available); err != nil {
		return "", err
	}
	if cmdChanged("model") {
		a.SetModel(o.model)
	}
	if cmdChanged("system") {
		a.SetSystem(o.system)
	}
	if cmdChanged("max-steps") {
		b, err := steps.Parse(o.maxSteps)
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
func stillHere(d deps, def agent.Definition, available *tool.Set) []agent.ToolDescriptor {
	if def.Identifier == defaultAgentName {
		return nil
	}
	var kept []agent.ToolDescriptor
	for _, t := range def.Tools {
		if _, ok := available.Lookup(t.Name); ok {
			kept = append(kept, t)
			continue
		}
		fmt.Fprintf(d.stderr, "the session's agent %s used the tool %s, which this run does not have; going on without it\n", def.Identifier, t.Name)
	}
	if len(kept) == 0 && len(def.Tools) > 0 {
		kept = []agent.ToolDescriptor{} // none left is not "all of them"
	}
	return kept
}

func newAgentsCmd(d deps, o *rootOptions) *cobra.Command {
	load := func() (map[string]agent.Definition, config.Config, error) {
		cfg, err := loadConfigFile(d, o, config.Flags{})
		if err != nil {
			return nil, cfg, err
		}
		defs, err := definitions(d, o, cfg)
		return defs, cfg, err
	}
	get := func(name string) (agent.Definition, error) {
		defs, _, err := load()
		if err != nil {
			return agent.Definition{}, err
		}
		def, ok := defs[name]
		if !ok {
			return def, fmt.Errorf("no agent named %q; chat agents list shows them", name)
		}
		return def, nil
	}
	cmd := &cobra.Command{Use: "agents", Short: "List, show, export or import agent definitions (personas)"}
	list := &cobra.Command{
		Use: "list", Short: "List the named agents", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			defs, cfg, err := load()
			if err != nil {
				return err
			}
			if len(defs) == 0 {
				fmt.Fprintf(d.stdout, "no named agents yet: add [agents.NAME] to %s or chat agents import FILE\n", configPath(d, o))
				return nil
			}
			names := slices.Sorted(maps.Keys(defs))
			sources := agentSources(d, o, cfg)
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tFROM\tMODEL\tSTEPS\tTOOLS\tINSTRUCTIONS")
			for _, n := range names {
				def := defs[n]
				budget := def.MaxSteps.String()
				var tools []string
				for _, t := range def.Tools {
					tools = append(tools, t.Name)
				}
				if len(tools) == 0 {
					tools = []string{"(all)"}
				}
				model := def.Model
				if model == "" {
					model = "(default)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n, sources[n], model, budget, strings.Join(tools, ","), firstLineOf(def.Instructions))
			}
			return tw.Flush()
		},
	}
	show := &cobra.Command{
		Use: "show NAME", Short: "Print an agent definition as JSON", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			def, err := get(args[0])
			if err != nil {
				return err
			}
			return writeJSON(d, def)
		},
	}
	export := &cobra.Command{
		Use: "export NAME", Short: "Write an agent definition's JSON form (with its tool descriptors) to stdout", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			def, err := get(args[0])
			if err != nil {
				return err
			}
			available, _, err := toolSet(d, config.Config{})
			if err != nil {
				return err
			}
			if set, err := def.ToolSet(available); err == nil {
				def.Tools = agent.Describe(set.All())
			}
			return writeJSON(d, def)
		},
	}
	var force bool
	imp := &cobra.Command{
		Use: "import FILE", Short: "Import an agent definition from its JSON form", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			var def agent.Definition
			if err := json.Unmarshal(b, &def); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			available, _, err := toolSet(d, config.Config{})
			if err != nil {
				return err
			}
			if _, err := def.ResolveTools(available); err != nil {
				return err
			}
			if len(def.StructuredOutput) > 0 {
				if _, err := agent.CompileSchema(def.StructuredOutput); err != nil {
					return err
				}
			}
			dir := agentsDir(d, o)
			path := filepath.Join(dir, def.Identifier+".json")
			if _, err := os.Stat(path); err == nil && !force {
				return fmt.Errorf("%s exists; --force replaces it", path)
			} else if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			out, _ := json.MarshalIndent(def, "", "  ")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(path, append(out, '\n'), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "imported agent %s into %s\n", def.Identifier, path)
			cfg, err := loadConfigFile(d, o, config.Flags{})
			if _, shadowed := cfg.Agents[def.Identifier]; err == nil && shadowed {
				fmt.Fprintf(d.stdout, "but [agents.%s] in %s has the same name and wins: the imported one is not used until that table is renamed or removed\n",
					def.Identifier, configPath(d, o))
			}
			return nil
		},
	}
	imp.Flags().BoolVar(&force, "force", false, "replace an agent of the same name")
	cmd.AddCommand(list, show, export, imp)
	return cmd
}

func writeJSON(d deps, v any) error {
	enc := json.NewEncoder(d.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
