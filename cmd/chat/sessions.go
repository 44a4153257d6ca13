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

// chat sessions list|show|export|rm

func newSessionsCmd(d deps, o *rootOptions) *cobra.Command {
	env := func() app.Env { return app.Env{Getenv: d.getenv} }
	cmd := &cobra.Command{Use: "sessions", Short: "List, show, export or remove saved sessions"}
	var asJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List saved sessions, newest first", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, _ := loadConfigFile(d, o, config.Flags{})
			rows, err := app.ListSessions(env(), cfg, "")
			e := env()
			if e.Workdir, _ = d.workdir(); err == nil {
				app.MarkWorktrees(context.Background(), e, cfg, rows) // in a repository, its worktrees' sessions
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(d, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(d.stdout, "no saved sessions yet")
				return nil
			}
			return app.WriteSessions(d.stdout, rows, time.Now())
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	show := &cobra.Command{
		Use: "show [ID]", Short: "Print a session's transcript (without ID: this directory's latest)", Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			e, err := appEnv(d) // the working directory, for its latest
			if err != nil {
				return err
			}
			l, err := app.LoadSession(e, strings.Join(args, ""))
			if err != nil {
				return err
			}
			app.WriteTranscript(d.stdout, session.WithRewound(l.Messages, l.Rewound))
			return nil
		},
	}
	var format string
	export := &cobra.Command{
		Use: "export ID", Short: "Export a session as Markdown or JSON", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			l, err := app.LoadSession(env(), args[0])
			if err != nil {
				return err
			}
			switch format {
			case "md", "markdown":
				app.WriteMarkdown(d.stdout, l)
			case "json":
				return writeJSON(d, struct {
					Header   session.Header    `json:"header"`
					Messages []session.Message `json:"messages"`
				}{l.Header, l.Messages})
			default:
				return fmt.Errorf("--format is md or json, not %q", format)
			}
			return nil
		},
	}
	export.Flags().StringVar(&format, "format", "md", "md or json")
	rm := &cobra.Command{
		Use: "rm ID", Short: "Remove a saved session", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			info, err := app.RemoveSession(env(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(d.stdout, "removed %s (%s) and its checkpoints\n", info.ID, info.Title)
			return nil
		},
	}
	cmd.AddCommand(list, show, export, rm)
	return cmd
}
