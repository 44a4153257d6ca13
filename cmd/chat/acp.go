package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/acpserver"
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/version"
)

// newACPCmd builds `chat acp`; runF (nil: runACP) gets the settings the
// command line and the config make, as the root command's does.
func newACPCmd(d deps, o *rootOptions, runF runFunc) *cobra.Command {
	if runF == nil {
		runF = runACP
	}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Run as an agent for editors (Agent Client Protocol on stdin/stdout)",
		Long: `chat acp speaks the Agent Client Protocol (agentclientprotocol.com) on stdin and
stdout, for editors that drive agents: Zed, JetBrains IDEs, Neovim (CodeCompanion,
avante). Each session the editor opens is a chat session in its working directory,
saved like any other (chat --resume ID continues it in the terminal). The sandbox,
the deny lists, hooks and approvals work as in the REPL: the editor asks you.

Beyond the protocol: the extension method _chat/steer {sessionId, text} sends text
into the running turn, as typing during a turn does in the REPL.`,
		Example: `  Zed (settings.json):  "agent_servers": {"chat": {"command": "chat", "args": ["acp"]}}`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, d, o)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), d, o, cfg, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	withRunFlags(f, o, "model", "base-url", "agent", "worktree", "sandbox", "allow-domain", "max-steps", "max-cost", "max-tokens", "context-window", "no-project-instructions")
	return cmd
}

// runACP serves editors on stdin/stdout. Only the protocol writes to
// stdout: every note, warning and log goes to stderr, which editors keep
// in their logs.
func runACP(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	proto := d.stdout
	d.stdout = d.stderr
	// Each session moves into the worktree of its own folder's
	// repository, not of the folder chat was started in.
	worktree := o.worktree
	o.worktree = ""
	spec, err := runSpec(d, o, cfg, changed)
	if err != nil {
		return err
	}
	spec.Worktree = worktree
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	return acpserver.ServeRuns(ctx, spec, acpserver.Options{Name: "chat", Version: version.Version(), Log: d.stderr}, d.stdin, proto)
}
