package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
)

// intoWorktree is env moved into the worktree name (--worktree), said on
// stderr: where the run works, on which branch.
func intoWorktree(d deps, env app.Env, cfg config.Config, name string) (app.Env, error) {
	moved, t, created, err := app.EnterWorktree(context.Background(), env, cfg, name)
	if err != nil {
		return env, fmt.Errorf("--worktree %s: %w", name, err)
	}
	verb := "in the worktree"
	if created {
		verb = "made the worktree"
	}
	fmt.Fprintf(d.stderr, "chat: %s %s (branch %s) at %s\n", verb, t.Name, t.Branch, t.Dir)
	return moved, nil
}

func newWorktreeCmd(d deps, o *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "worktree", Aliases: []string{"worktrees"},
		Short: "List chat's git worktrees of this repository, show their work, merge it, remove them",
		Long: `chat --worktree NAME runs a session in a linked git worktree of its own, on the branch
chat/NAME, beside the repository (or under [worktree] dir). Sub-agents whose persona says
isolation = "worktree" work in one too. These commands bring the work back.`}
	ctx := func() (context.Context, app.Env, config.Config, error) {
		cfg, err := loadConfigFile(d, o, config.Flags{})
		if err != nil {
			return nil, app.Env{}, cfg, err
		}
		env, err := appEnv(d)
		return context.Background(), env, cfg, err
	}
	var asJSON bool
	list := &cobra.Command{Use: "list", Short: "Each worktree: its branch, ahead/behind, uncommitted files, latest session and whether it is in use", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			rows, err := app.Worktrees(c, env, cfg)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(d, rows)
			}
			return app.WriteWorktrees(d.stdout, rows, time.Now())
		}}
	list.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	var stat bool
	diff := &cobra.Command{Use: "diff NAME", Short: "What the worktree changed against this branch: its commits, then what it holds uncommitted", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			out, err := app.WorktreeDiff(c, env, cfg, args[0], stat)
			fmt.Fprint(d.stdout, out)
			return err
		}}
	diff.Flags().BoolVar(&stat, "stat", false, "files and line counts only")
	merge := &cobra.Command{Use: "merge NAME", Short: "Merge the worktree's branch into the current branch (its uncommitted work committed first); stops on a conflict", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			out, err := app.WorktreeMerge(c, env, cfg, args[0])
			fmt.Fprint(d.stdout, out)
			return err
		}}
	var force bool
	rm := &cobra.Command{Use: "rm NAME", Aliases: []string{"remove"}, Short: "Remove a worktree (refused while it holds uncommitted work, unless --force); its branch goes once merged", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			out, err := app.WorktreeRemove(c, env, cfg, args[0], force)
			fmt.Fprint(d.stdout, out)
			return err
		}}
	rm.Flags().BoolVar(&force, "force", false, "remove it with its uncommitted work")
	cmd.AddCommand(list, diff, merge, rm)
	return cmd
}
