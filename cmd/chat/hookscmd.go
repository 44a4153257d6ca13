package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
)

// newHooksCmd is `chat hooks`: list the hooks, and trust a project's.
func newHooksCmd(d deps, o *rootOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the hooks that run (the config's and this project's " + config.ProjectHooksFile + ")",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := hooksHere(d, o)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(d.stdout, h.List())
			return err
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "trust",
		Short: "Let this project's " + config.ProjectHooksFile + " run, as it is now (a changed file asks again)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := hooksHere(d, o)
			if err != nil {
				return err
			}
			said, err := h.Trust()
			fmt.Fprint(d.stdout, said)
			return err
		},
	})
	return cmd
}

// hooksHere reads the config's hooks and the working directory's.
func hooksHere(d deps, o *rootOptions) (*app.Hooks, error) {
	cfg, err := loadConfigFile(d, o, config.Flags{})
	if err != nil {
		return nil, err
	}
	env, err := appEnv(d)
	if err != nil {
		return nil, err
	}
	return app.HooksHere(env, cfg)
}
