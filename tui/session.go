package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/web"
)

// SessionOptions is what the REPL is asked beyond the run's spec.
type SessionOptions struct {
	HistoryPath         string
	Fullscreen, NoColor bool
	Plan                bool // start in plan mode
	Serve               bool // put the session on a web page at start (chat --serve)
	// Input and Output are the terminal (nil: stdin and stdout); Stderr
	// hears how to resume once the screen is gone.
	Input          io.Reader
	Output, Stderr io.Writer
}

// RunSession opens the run spec asks for and shows it until the person
// quits: the REPL as a front end over app.Run. Approvals ask in the
// terminal, and in a page too once /serve put the session on one.
func RunSession(ctx context.Context, spec app.Spec, o SessionOptions) error {
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	ls := listener.NewList()
	approvals := NewApprovals()
	share := web.NewShare(approvals) // /serve: the page asks too, once it is there
	spec.Listeners, spec.Cancellable, spec.Interloper, spec.Approver = ls, control.NewCancellable(), control.NewInterloper(), share
	spec.Elicitor = approvals.Elicit // a server's form shows under the transcript
	run, err := app.Open(ctx, spec)
	if err != nil {
		return err
	}
	defer run.Close()
	run.Start(ctx, app.ProbeAtStart)
	if o.Plan {
		if err := run.SetPlanning(true); err != nil && !run.Planning() {
			return err
		} // else the status bar says plan mode; a command says why it cannot run
	}
	// From here on the screen is the program's: hooks report into it.
	notice := ls.Warn
	run.OnScreen(notice)
	run.AskHookTrust(ctx, approvals)
	err = Run(ctx, Options{
		App: run, HistoryPath: o.HistoryPath, Fullscreen: o.Fullscreen, NoColor: o.NoColor,
		Approvals: approvals, Input: o.Input, Output: o.Output,
		Share: web.Sharer(ctx, run, share), ShareAtStart: o.Serve,
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
		return err
	}
	if id := run.SessionID(); id != "" && run.Agent().Session().Len() > 1 {
		fmt.Fprintf(o.Stderr, "session saved · chat --resume %s\n", session.ShortID(id))
	}
	return nil
}
