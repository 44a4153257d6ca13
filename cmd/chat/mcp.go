package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/browser"
)

// newMCPCmd builds `chat mcp`; addF (nil: write the config file) gets
// the server `chat mcp add` makes of its flags, so a test can see it.
func newMCPCmd(d deps, o *rootOptions, addF func(name string, m config.MCPConfig) error) *cobra.Command {
	if addF == nil {
		addF = func(name string, m config.MCPConfig) error {
			path := configPath(d, o)
			if err := config.AddMCP(path, name, m); err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "added MCP server %s to %s\n", name, path)
			return nil
		}
	}
	cmd := &cobra.Command{Use: "mcp", Short: "List, add or remove MCP servers ([mcp.NAME] in the config file)"}
	var offline bool
	list := &cobra.Command{
		Use: "list", Short: "List the configured MCP servers, each connected to say its state, tools, prompts and resources", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := loadConfigFile(d, o, config.Flags{})
			if err != nil {
				return err
			}
			if len(cfg.MCP) == 0 {
				fmt.Fprintf(d.stdout, "no MCP servers yet: chat mcp add NAME --command PROGRAM (or --url URL), or [mcp.NAME] in %s\n", configPath(d, o))
				return nil
			}
			states := map[string]app.MCPState{}
			if !offline {
				m, err := openMCP(d, cfg)
				if err != nil {
					return err
				}
				defer m.Close()
				m.ConnectAll(c.Context())
				for _, st := range m.States() {
					states[st.Name] = st
				}
			}
			return app.WriteMCPServers(d.stdout, cfg.MCP, states)
		},
	}
	list.Flags().BoolVar(&offline, "offline", false, "only the config: connect to no server")
	prompts := &cobra.Command{
		Use: "prompts NAME", Short: "List a server's prompts (in the REPL: /NAME:PROMPT key=value …)", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withServer(c.Context(), d, o, args[0], func(m *app.MCP) error { return app.WriteMCPPrompts(d.stdout, m.Prompts()) })
		},
	}
	resources := &cobra.Command{
		Use: "resources NAME", Short: "List a server's resources and templates (mention one as @NAME:URI)", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withServer(c.Context(), d, o, args[0], func(m *app.MCP) error { return app.WriteMCPResources(d.stdout, m.Resources()) })
		},
	}
	var add config.MCPConfig
	var env, headers []string
	addCmd := &cobra.Command{
		Use: "add NAME", Short: "Add an MCP server to the config file", Args: cobra.ExactArgs(1),
		Example: "  chat mcp add files --command npx --arg -y --arg @modelcontextprotocol/server-filesystem --arg .\n" +
			"  chat mcp add docs --url https://example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'",
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			var err error
			if add.Env, err = config.ParsePairs("--env", env); err != nil {
				return err
			}
			if add.Headers, err = config.ParsePairs("--header", headers); err != nil {
				return err
			}
			if err := config.CheckMCP(name, add); err != nil {
				return err
			}
			return addF(name, add)
		},
	}
	f := addCmd.Flags()
	f.StringVar(&add.Command, "command", "", "program that speaks MCP on stdio")
	f.StringArrayVar(&add.Args, "arg", nil, "an argument of the command (repeat)")
	f.StringArrayVar(&env, "env", nil, "KEY=VALUE for the command's environment; ${VAR} is read from yours at start (repeat)")
	f.StringVar(&add.URL, "url", "", "streamable HTTP endpoint")
	f.StringArrayVar(&headers, "header", nil, "KEY=VALUE sent with every request; ${VAR} is read from your environment (repeat)")
	f.StringVar(&add.Description, "description", "", "what the server is for (the model reads it)")
	f.BoolVar(&add.Eager, "eager", false, "connect at start instead of when the model asks")
	f.StringArrayVar(&add.Allow, "allow", nil, "a tool of the server that runs without asking (repeat)")
	rm := &cobra.Command{
		Use: "rm NAME", Short: "Remove an MCP server from the config file", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			name, path := args[0], configPath(d, o)
			if err := config.RemoveMCP(path, name); err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "removed MCP server %s from %s\n", name, path)
			return nil
		},
	}
	login := &cobra.Command{
		Use: "login NAME", Short: "Log in to an HTTP server that requires OAuth (opens the browser; the tokens are kept 0600 under chat's state folder)", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := openConfiguredMCP(d, o)
			if err != nil {
				return err
			}
			defer m.Close()
			say := func(s string) { fmt.Fprintln(d.stderr, s) }
			// The request's state goes to the browser in a file of the
			// person's, never in its argv (every local user reads those).
			forget := func() {}
			defer func() { forget() }()
			open := func(u string) (err error) {
				forget, err = browser.OpenPrivately(d.getenv, "", u)
				return err
			}
			if err := m.Login(c.Context(), args[0], say, open); err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "logged in to %s\n", args[0])
			return nil
		},
	}
	logout := &cobra.Command{
		Use: "logout NAME", Short: "Forget the tokens of a server's OAuth login", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := openConfiguredMCP(d, o)
			if err != nil {
				return err
			}
			defer m.Close()
			had, err := m.Logout(args[0])
			switch {
			case err != nil:
				return err
			case had:
				fmt.Fprintf(d.stdout, "logged out of %s (its tokens are gone)\n", args[0])
			default:
				fmt.Fprintf(d.stdout, "chat held no login for %s\n", args[0])
			}
			return nil
		},
	}
	cmd.AddCommand(list, prompts, resources, login, logout, addCmd, rm)
	return cmd
}

// openMCP makes the configured servers as a run would.
func openMCP(d deps, cfg config.Config) (*app.MCP, error) {
	env, err := appEnv(d)
	if err != nil {
		return nil, err
	}
	return app.OpenMCP(cfg, env), nil
}

// openConfiguredMCP makes the servers of the config file.
func openConfiguredMCP(d deps, o *rootOptions) (*app.MCP, error) {
	cfg, err := loadConfigFile(d, o, config.Flags{})
	if err != nil {
		return nil, err
	}
	return openMCP(d, cfg)
}

// withServer connects the named server and hands it to show.
func withServer(ctx context.Context, d deps, o *rootOptions, name string, show func(*app.MCP) error) error {
	m, err := openConfiguredMCP(d, o)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Connect(ctx, name); err != nil {
		return err
	}
	return show(m)
}
