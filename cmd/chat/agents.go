package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
)

// Agent definitions come from the config file ([agents.NAME]) and from
// JSON files imported into $XDG_CONFIG_HOME/chat/agents/.

func agentsDir(d deps, o *rootOptions) string {
	return filepath.Join(filepath.Dir(configPath(d, o)), "agents")
}

func newAgentsCmd(d deps, o *rootOptions) *cobra.Command {
	load := func() (map[string]agent.Definition, config.Config, error) {
		cfg, err := loadConfigFile(d, o, config.Flags{})
		if err != nil {
			return nil, cfg, err
		}
		defs, err := app.Definitions(cfg, agentsDir(d, o))
		return defs, cfg, err
	}
	get := func(name string) (agent.Definition, error) {
		defs, _, err := load()
		if err != nil {
			return agent.Definition{}, err
		}
		return app.Named(defs, name)
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
			return app.WriteAgents(d.stdout, defs, app.AgentSources(cfg, agentsDir(d, o)))
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
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			if def, err = app.ExportAgent(env, def); err != nil {
				return err
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
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			def, path, err := app.ImportAgent(env, b, agentsDir(d, o), force)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
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
