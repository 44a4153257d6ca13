package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/session"
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
			return writeWorktrees(d, rows)
		}}
	list.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	var stat bool
	diff := &cobra.Command{Use: "diff NAME", Short: "What the worktree changed against this branch: its commits, then what it holds uncommitted", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			repo, t, err := app.FindWorktree(c, env, cfg, args[0])
			if err != nil {
				return err
			}
			out, err := repo.Diff(c, t, stat)
			if err != nil {
				return err
			}
			if out == "" {
				fmt.Fprintf(d.stdout, "the worktree %s changed nothing\n", t.Name)
				return nil
			}
			_, err = fmt.Fprint(d.stdout, out)
			return err
		}}
	diff.Flags().BoolVar(&stat, "stat", false, "files and line counts only")
	merge := &cobra.Command{Use: "merge NAME", Short: "Merge the worktree's branch into the current branch (its uncommitted work committed first); stops on a conflict", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			repo, t, err := app.FindWorktree(c, env, cfg, args[0])
			if err != nil {
				return err
			}
			if err := repo.Merge(c, t); err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "merged %s into the current branch; chat worktree rm %s removes the worktree\n", t.Branch, t.Name)
			return nil
		}}
	var force bool
	rm := &cobra.Command{Use: "rm NAME", Aliases: []string{"remove"}, Short: "Remove a worktree (refused while it holds uncommitted work, unless --force); its branch goes once merged", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, env, cfg, err := ctx()
			if err != nil {
				return err
			}
			repo, t, err := app.FindWorktree(c, env, cfg, args[0])
			if err != nil {
				return err
			}
			kept, err := repo.Remove(c, t, force)
			if err != nil {
				return err
			}
			if kept {
				fmt.Fprintf(d.stdout, "removed %s; its branch %s is not merged and is kept (git branch -D %s drops it)\n", t.Dir, t.Branch, t.Branch)
			} else {
				fmt.Fprintf(d.stdout, "removed %s and its branch %s\n", t.Dir, t.Branch)
			}
			return nil
		}}
	rm.Flags().BoolVar(&force, "force", false, "remove it with its uncommitted work")
	cmd.AddCommand(list, diff, merge, rm)
	return cmd
}

// writeWorktrees is chat worktree list's table.
func writeWorktrees(d deps, rows []app.WorktreeRow) error {
	if len(rows) == 0 {
		fmt.Fprintln(d.stdout, "no worktrees yet: chat --worktree NAME makes one")
		return nil
	}
	return app.Table(d.stdout, "NAME\tBRANCH\tAHEAD\tBEHIND\tCHANGED\tSESSION\tSTATE\tDIR", func(row func(...any)) {
		for _, r := range rows {
			changed := "-"
			if n := len(r.Changed); n > 0 {
				changed = fmt.Sprintf("%d: %s", n, strings.Join(r.Changed[:min(n, 3)], ", "))
				if n > 3 {
					changed += ", …"
				}
			}
			sess := "-"
			if r.Session != nil {
				sess = session.ShortID(r.Session.ID) + " " + session.AgoText(time.Since(r.Session.Updated))
			}
			row(r.Name, r.Branch, r.Ahead, r.Behind, changed, sess, r.State, r.Dir)
		}
	})
}
