package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tui"
	"github.com/chatrepl/chat/web"
)

// runREPL opens the interactive terminal UI.
func runREPL(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	switch {
	case len(o.files) > 0:
		return errors.New("-f attaches files in print mode (with -p); in the REPL use /attach PATH")
	case o.schema != "":
		return errors.New("--schema applies to print mode (with -p); the REPL answers in free text")
	}
	spec, err := runSpec(d, o, cfg, changed)
	if err != nil {
		return err
	}
	spec.Titles = true // the REPL lists sessions by name (/resume)
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	return replSession(ctx, spec, d, o)
}

// replSession opens the run spec asks for and shows it in the terminal
// until the person quits; /worktree NAME opens the next one in that
// worktree (its latest session, else a new one).
func replSession(ctx context.Context, spec app.Spec, d deps, o *rootOptions) error {
	for {
		moved, err := replRun(ctx, spec, d, o)
		if err != nil || moved == "" {
			return err
		}
		spec.Env.Workdir = moved
		spec.Resume, spec.Continue, o.plan = "", app.ContinueIn(spec.Env, moved), false
	}
}

// replRun is one run of the REPL; moved is the folder /worktree NAME
// asked to go on in. Approvals ask in the terminal, and in a page
// too once /serve put the session on one: the page is wired here, so
// neither front end imports the other.
func replRun(ctx context.Context, spec app.Spec, d deps, o *rootOptions) (moved string, _ error) {
	ls := listener.NewList()
	approvals := tui.NewApprovals()
	share := web.NewShare(approvals) // /serve: the page asks too, once it is there
	spec.Listeners, spec.Cancellable, spec.Interloper, spec.Approver = ls, control.NewCancellable(), control.NewInterloper(), share
	spec.Elicitor = approvals.Elicit // a server's form shows under the transcript
	run, err := app.Open(ctx, spec)
	if err != nil {
		return "", err
	}
	defer run.Close()
	run.Start(ctx, app.ProbeAtStart)
	if o.plan {
		if err := run.SetPlanning(true); err != nil && !run.Planning() {
			return "", err
		} // else the status bar says plan mode; a command says why it cannot run
	}
	var report string
	// From here on the screen is the program's: hooks report into it.
	notice := ls.Warn
	run.OnScreen(notice)
	run.AskHookTrust(ctx, approvals)
	err = tui.Run(ctx, tui.Options{
		App: run, HistoryPath: xdg.State.Chat(d.getenv, "history.jsonl"), Fullscreen: o.fullscreen, NoColor: d.getenv("NO_COLOR") != "",
		Approvals: approvals, Input: d.termIn, Output: d.termOut,
		Getenv: d.getenv,
		// Without the API key or other secret-looking variables, as every child.
		StatusLine: tui.StatusLine{Command: spec.Config.TUI.StatusLine, Dir: spec.Env.Workdir, Env: app.ChildEnv(spec.Env, spec.Config)},
		Notify:     tui.Notify{When: spec.Config.Notify.Moments(), MinTurn: spec.Config.Notify.Least(), Method: spec.Config.Notify.Method, Getenv: d.getenv},
		Share:      web.Sharer(ctx, run, share), ShareAtStart: o.serve,
		Moved: func(dir, said string) { moved, report = dir, said },
		// The first frame waits neither for a server to start nor for the
		// box: they start behind it, the servers' tools join as they come,
		// and the box's notice says which box is in force before anything
		// runs in it.
		Listening: func() {
			run.StartBox()
			run.ConnectEager(ctx, notice)
		},
	}, ls)
	if err != nil && !errors.Is(err, context.Canceled) {
		return "", err
	}
	if id := run.SessionID(); id != "" && run.Session().Len() > 1 {
		fmt.Fprintf(d.stderr, "session saved · chat --resume %s\n", session.ShortID(id))
	}
	if moved != "" {
		fmt.Fprintf(d.stderr, "chat: %s\n", report)
	}
	return moved, nil
}
