package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/tui"
)

// newCommandsCmd is `chat commands`: the prompt files, and trusting a
// project's.
func newCommandsCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "commands",
		Short: "List the prompt files that run as /NAME (.chat/commands, .claude/commands, .gemini/commands, ~/.config/chat/commands)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			app.WritePromptFiles(d.stdout, env, tui.IsCommand)
			return nil
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "trust",
		Short: "Let this project's prompt files run, as they are now (a changed file asks again)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := appEnv(d)
			if err != nil {
				return err
			}
			cmds, _, _ := app.PromptFilesIn(env)
			var project []app.PromptFile
			for _, c := range cmds {
				if c.Project {
					project = append(project, c)
				}
			}
			if len(project) == 0 {
				_, err := fmt.Fprintln(d.stdout, "this project has no prompt files")
				return err
			}
			if err := app.TrustPromptFiles(env, project...); err != nil {
				return err
			}
			for _, c := range project {
				fmt.Fprintf(d.stdout, "trusted /%s (%s)\n", c.Name, c.Path)
			}
			return nil
		},
	})
	return cmd
}
