package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/printmode"
	"github.com/chatrepl/chat/tui"
)

// newReviewCmd is `chat review [BASE]`: the changes reviewed in a run that
// writes nothing.
func newReviewCmd(d deps, o *rootOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "review [BASE]",
		Short: "Review the working tree's changes (or the branch against BASE): findings by severity, with file and line",
		Long: `chat review sends the changes git knows (the working tree against HEAD, new files
included; with BASE, the branch from where it parted from BASE) to the model with a
reviewing prompt, in a run that writes nothing: the writing tools are not offered and
commands run in the read-only box. The findings come back most severe first, each with
its file and line. A prompt file named review (.chat/commands/review.md, or yours)
stands in for the reviewing prompt; its $ARGUMENTS is BASE.`,
		Example: `  chat review
  chat review main
  chat review --json | jq -r 'select(.severity == "high") | .file'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, d, o)
			if err != nil {
				return err
			}
			spec, err := runSpec(d, o, cfg, cmd.Flags().Changed)
			if err != nil {
				return err
			}
			review := &printmode.Review{JSON: asJSON}
			if len(args) == 1 {
				review.Base = args[0]
			}
			err = printmode.Run(cmd.Context(), printmode.Options{Spec: spec, Reserved: tui.IsCommand, Review: review,
				Verbose: o.verbose, Stdout: d.stdout, Stderr: d.stderr, Signals: d.signals, Exit: d.exit})
			if code, ok := errors.AsType[printmode.ExitCode](err); ok {
				return &exitError{code: int(code)}
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each finding as a JSON object, one a line")
	withRunFlags(cmd.Flags(), o, "model", "base-url", "agent", "max-steps", "context-window")
	return cmd
}
