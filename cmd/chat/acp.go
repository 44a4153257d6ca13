package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/acpserver"
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
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
	f.StringVar(&o.model, "model", "", "model name (env CHAT_MODEL)")
	f.StringVar(&o.baseURL, "base-url", "", "API base URL (env OPENAI_BASE_URL)")
	f.StringVar(&o.agent, "agent", "", "start sessions with a named agent definition")
	f.StringVar(&o.sandbox, "sandbox", "", "where shell commands run: workspace-write (default), read-only, or off")
	f.IntVar(&o.maxSteps, "max-steps", steps.Default.Max(), "tool calls allowed per turn before the answer is synthesized; 0 = unlimited")
	f.Float64Var(&o.maxCost, "max-cost", 0, "US dollars a turn may spend before its answer is synthesized; 0 = no bound")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "tokens a turn may spend before its answer is synthesized; 0 = no bound")
	f.IntVar(&o.ctxWin, "context-window", 0, "the model's context window in tokens, when the server does not say")
	f.BoolVar(&o.noProject, "no-project-instructions", false, "leave the project's AGENTS.md (or CLAUDE.md) files out")
	return cmd
}

// runACP serves editors on stdin/stdout. Only the protocol writes to
// stdout: every note, warning and log goes to stderr, which editors keep
// in their logs.
func runACP(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	proto := d.stdout
	d.stdout = d.stderr
	env, err := appEnv(d)
	if err != nil {
		return err
	}
	if err := app.ResolveEndpoint(ctx, env, &cfg); err != nil {
		return err
	}
	srv := acpserver.New(acpserver.Options{Name: "chat", Version: version(), Log: d.stderr,
		List: func(cwd string) ([]acpserver.Saved, error) {
			all, err := app.ListSessions(env, cfg, cwd)
			var out []acpserver.Saved
			for _, s := range all {
				out = append(out, acpserver.Saved{ID: s.ID, Cwd: s.Dir, Title: s.Title, Updated: s.Updated})
			}
			return out, err
		},
		// A session lives as long as chat acp, not as the request that
		// opened it: its window probe, MCP servers and hooks were cut
		// when session/new returned.
		Open: func(_ context.Context, r acpserver.OpenRequest) (*acpserver.Session, error) {
			return openACP(ctx, d, *o, cfg, changed, r)
		}})
	return srv.Serve(ctx, d.stdin, proto)
}

// openACP builds one editor session with the application layer print
// mode and the REPL use, in the directory the editor gives.
func openACP(ctx context.Context, d deps, o rootOptions, cfg config.Config, changed func(string) bool, r acpserver.OpenRequest) (*acpserver.Session, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the session's folder %s is not a directory here", r.Cwd)
	}
	d.workdir = func() (string, error) { return r.Cwd, nil }
	o.resume, o.cont, o.ifBusy = r.Load, false, "exit" // never two writers in one session
	cfg = app.WithEditorServers(cfg, r.MCP, func(s string) { fmt.Fprintln(d.stderr, "chat: "+s) })
	spec, err := runSpec(d, &o, cfg, changed)
	if err != nil {
		return nil, err
	}
	ls := listener.NewList(r.Listener)
	in := control.NewInterloper()
	spec.Listeners, spec.Cancellable, spec.Interloper, spec.Approver = ls, control.NewCancellable(), in, r.Approver
	run, err := app.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	run.Start(ctx, app.ProbeAtStart)
	notice := func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) }
	run.HookNotes(notice)
	if note := run.UntrustedNote(); note != "" {
		ls.Emit(listener.Notice{Text: note})
	}
	run.ConnectEager(ctx, notice)
	if m := run.MCP(); m != nil {
		m.SetElicitor(r.Elicitor)
	}
	s := &acpserver.Session{ID: run.SessionID(), Agent: run.Agent(), Interloper: in, NewTurn: run.NewTurn,
		Close:    run.Close,
		Commands: run.Commands(), Expand: run.ExpandInput}
	if s.ID == "" {
		run.Close()
		return nil, fmt.Errorf("the session could not be saved")
	}
	if s.Modes, s.Mode = run.Modes(); len(s.Modes) > 0 {
		s.SetMode = run.SetMode
	}
	return s, nil
}

// version is the module's version ("devel" for a build from a checkout).
