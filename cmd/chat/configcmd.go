package main

import (
	"fmt"
	"github.com/chatrepl/chat/app"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/llm"
)

func newConfigCmd(d deps, o *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show or create the configuration"}
	cmd.AddCommand(
		&cobra.Command{
			Use: "path", Short: "Print the config file's path", Args: cobra.NoArgs,
			Run: func(*cobra.Command, []string) { fmt.Fprintln(d.stdout, configPath(d, o)) },
		},
		&cobra.Command{
			Use: "show", Short: "Print the effective configuration (never the API key)", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				cfg, err := loadConfigFile(d, o, config.Flags{})
				if err != nil {
					return err
				}
				// api_key_cmd is not run just to show settings; a key or
				// password in the base URL is not shown.
				if err := cfg.ResolveEndpoint(); err != nil {
					fmt.Fprintf(d.stderr, "note: %v\n\n", err)
				}
				cfg.BaseURL = llm.Redact(cfg.BaseURL)
				cfg.Show(d.stdout)
				return nil
			},
		},
		&cobra.Command{
			Use: "init", Short: "Write a commented config file to start from", Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				path := configPath(d, o)
				if err := config.Init(path); err != nil {
					return err
				}
				fmt.Fprintf(d.stdout, "wrote %s\n", path)
				return nil
			},
		},
	)
	return cmd
}

func newModelsCmd(d deps, o *rootOptions) *cobra.Command {
	var baseURL string
	cmd := &cobra.Command{
		Use: "models", Short: "List the models the server offers", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Root(), d, o)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("base-url") {
				cfg.BaseURL = baseURL
				cfg.Sources["base_url"] = "flag"
			}
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			if err := app.ResolveEndpoint(cmd.Context(), env, &cfg); err != nil {
				return err
			}
			models, err := app.Client(cfg, "").Models(cmd.Context())
			if err != nil {
				return err
			}
			for _, m := range models {
				fmt.Fprintln(d.stdout, m)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the server to ask (default: the configured one)")
	return cmd
}
