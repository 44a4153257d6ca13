package acpserver

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// ServeRuns serves editors on in/out with sessions that are app runs:
// spec is the run the command line asks for, and each session the editor
// opens is that run in the session's folder. o.Open and o.List are filled
// in. A session lives as long as ctx, not as the request that opened it
// (its window probe, MCP servers and hooks would end with session/new).
func ServeRuns(ctx context.Context, spec app.Spec, o Options, in io.Reader, out io.Writer) error {
	o.List = func(cwd string) ([]Saved, error) {
		all, err := app.ListSessions(spec.Env, spec.Config, cwd)
		var saved []Saved
		for _, s := range all {
			saved = append(saved, Saved{ID: s.ID, Cwd: s.Dir, Title: s.Title, Updated: s.Updated})
		}
		return saved, err
	}
	o.Open = func(_ context.Context, r OpenRequest) (*Session, error) {
		return openRun(ctx, spec, r, o.Log)
	}
	return New(o).Serve(ctx, in, out)
}

// openRun builds one editor session with the application layer print
// mode and the REPL use, in the folder the editor gives.
func openRun(ctx context.Context, spec app.Spec, r OpenRequest, log io.Writer) (*Session, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the session's folder %s is not a directory here", r.Cwd)
	}
	spec.Env.Workdir = r.Cwd
	if spec.Worktree != "" {
		env, t, _, err := app.EnterWorktree(ctx, spec.Env, spec.Config, spec.Worktree)
		if err != nil {
			return nil, fmt.Errorf("--worktree %s: %w", spec.Worktree, err)
		}
		spec.Env = env
		fmt.Fprintf(log, "chat: the session in %s works in the worktree %s (branch %s) at %s\n", r.Cwd, t.Name, t.Branch, t.Dir)
	}
	spec.Resume, spec.Continue, spec.IfBusy = r.Load, false, "exit" // never two writers in one session
	spec.Config = app.WithEditorServers(spec.Config, r.MCP, func(s string) { fmt.Fprintln(log, "chat: "+s) })
	ls := listener.NewList(r.Listener)
	in := control.NewInterloper()
	spec.Listeners, spec.Cancellable, spec.Interloper, spec.Approver, spec.Elicitor = ls, control.NewCancellable(), in, r.Approver, r.Elicitor
	run, err := app.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	run.Start(ctx, app.ProbeAtStart)
	notice := ls.Warn
	run.HookNotes(notice)
	if note := run.UntrustedNote(); note != "" {
		ls.Emit(listener.Notice{Text: note})
	}
	run.ConnectEager(ctx, notice)
	s := &Session{ID: run.SessionID(), Loop: run.Loop(), NewTurn: run.NewTurnWith, Messages: func() []session.Message { return run.Session().Messages() },
		Close: func() { _ = run.Close() }, Commands: run.Commands(), Expand: run.ExpandInput}
	if s.ID == "" {
		run.Close()
		return nil, fmt.Errorf("the session could not be saved")
	}
	if s.Modes, s.Mode = run.Modes(); len(s.Modes) > 0 {
		s.SetMode = run.SetMode
	}
	return s, nil
}
