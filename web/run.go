package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
)

// ServeOptions is what `chat serve` asks beyond the run's spec.
type ServeOptions struct {
	Listen string // the address; another than the loopback is warned about
	// Opened gets the page's address once it answers (the browser, when
	// asked); the address goes to URLTo either way.
	Opened func(url string)
	URLTo  io.Writer
	Warn   io.Writer
}

// ServeSession opens the run spec asks for and serves it as a page until
// ctx ends: the third front end, with its own turn loop, approvals as
// cards and a server's form declined (the page has none yet).
func ServeSession(ctx context.Context, spec app.Spec, o ServeOptions) error {
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(o.Warn, "⚠ listening on %s: anyone who can reach it and has the address with its token can drive this session\n", ln.Addr())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ls := listener.NewList()
	stream := NewStream()
	approvals := NewApprovals(stream)
	spec.Listeners, spec.Cancellable, spec.Interloper, spec.Approver = ls, control.NewCancellable(), control.NewInterloper(), approvals
	spec.Elicitor = app.Declining(ls.Warn, "the page cannot show its form yet (the REPL's /serve can)")
	ls.Add(stream)
	run, err := app.Open(ctx, spec)
	if err != nil {
		ln.Close()
		return err
	}
	defer run.Close()
	stream.Follow(func() int { return run.Session().Len() })
	notice := ls.Warn
	run.OnScreen(notice)
	run.Start(ctx, app.ProbeAtStart)
	run.StartBox()
	run.ConnectEager(ctx, notice)
	srv, err := New(ctx, Options{Run: run, Stream: stream, Approvals: approvals, Listener: ln, Own: true})
	if err != nil {
		return err
	}
	fmt.Fprintln(o.URLTo, srv.URL())
	srv.creds.reissue = func() {
		fmt.Fprintf(o.Warn, "a sign-in link was tried that works no more (each works once); a new one:\n%s\n", srv.URL())
	}
	if o.Opened != nil {
		o.Opened(srv.URL())
	}
	return srv.Serve()
}

// Sharer is /serve for a REPL's run: on first use it puts the live
// session on a page on the loopback, steering the run's turns with the
// REPL, and returns a sign-in address (a new one each time: each works
// once).
func Sharer(ctx context.Context, run *app.Run, share *Share) func() (string, error) {
	var once sync.Once
	var srv *Server
	var err error
	return func() (string, error) {
		once.Do(func() {
			var ln net.Listener
			if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				return
			}
			share.Stream.Follow(func() int { return run.Session().Len() })
			run.Listeners().Add(share.Stream)
			share.Join()
			if srv, err = New(ctx, Options{Run: run, Stream: share.Stream, Approvals: share.Approvals, Listener: ln}); err != nil {
				ln.Close()
				return
			}
			go func() { _ = srv.Serve() }()
		})
		if err != nil {
			return "", err
		}
		return srv.URL(), nil
	}
}
