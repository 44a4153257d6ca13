package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"sync"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/web"
)

type serveOptions struct {
	listen string
	open   bool
}

// newServeCmd builds `chat serve`: the session as a web page.
func newServeCmd(d deps, o *rootOptions) *cobra.Command {
	so := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the working directory's sessions as a web page (on 127.0.0.1)",
		Long: `chat serve starts a web server for the working directory and prints one address
with a token: open it in a browser. The page lists the directory's sessions and shows
one as it streams (Markdown, tool calls, sub-agents, the context window, the turns and
the files each changed), and steers it like the REPL: Enter sends (during a turn: joins
it), Alt+Enter queues, Stop cancels the turn, approvals are buttons.

It listens on 127.0.0.1 unless --listen says otherwise. The token is exchanged once for a
cookie; requests must name the server by its address (no DNS rebinding) and come from
its page (Origin).`,
		Example: `  chat serve
  chat serve --continue --open
  chat serve --listen 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, d, o)
			if err != nil {
				return err
			}
			return runServe(cmd.Context(), d, o, so, cfg, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.listen, "listen", "127.0.0.1:0", "address to listen on (another than the loopback is reachable by your network)")
	f.BoolVar(&so.open, "open", false, "open the page in the browser (xdg-open)")
	f.StringVar(&o.model, "model", "", "model name (env CHAT_MODEL)")
	f.StringVar(&o.baseURL, "base-url", "", "API base URL (env OPENAI_BASE_URL)")
	f.StringVar(&o.agent, "agent", "", "use a named agent definition")
	f.BoolVarP(&o.cont, "continue", "c", false, "open the latest session of this directory")
	f.StringVarP(&o.resume, "resume", "r", "", "open the session with this id (a unique prefix is enough)")
	f.StringVar(&o.sandbox, "sandbox", "", "where shell commands run: workspace-write (default), read-only, or off")
	f.IntVar(&o.maxSteps, "max-steps", steps.Default.Max(), "tool calls allowed per turn before the answer is synthesized; 0 = unlimited")
	f.IntVar(&o.ctxWin, "context-window", 0, "the model's context window in tokens, when the server does not say")
	o.ifBusy = "new"
	return cmd
}

func runServe(ctx context.Context, d deps, o *rootOptions, so *serveOptions, cfg config.Config, changed func(string) bool) error {
	spec, err := runSpec(d, o, cfg, changed)
	if err != nil {
		return err
	}
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", so.listen)
	if err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(d.stderr, "⚠ listening on %s: anyone who can reach it and has the address with its token can drive this session\n", ln.Addr())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ls := listener.NewList()
	spec.Listeners, spec.Cancellable, spec.Interloper = ls, control.NewCancellable(), control.NewInterloper()
	stream := web.NewStream()
	approvals := web.NewApprovals(stream)
	spec.Approver = approvals
	ls.Add(stream)
	run, err := app.Open(ctx, spec)
	if err != nil {
		ln.Close()
		return err
	}
	defer run.Close()
	stream.Follow(func() int { return run.Agent().Session().Len() })
	run.OnScreen(func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) })
	run.Start(ctx, app.ProbeAtStart)
	run.StartBox()
	run.ConnectEager(ctx, func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) })
	if m := run.MCP(); m != nil {
		// The page has no form yet: a server's question is declined, and
		// the page says so.
		m.SetElicitor(app.Declining(func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) }, "the page cannot show its form yet (the REPL's /serve can)"))
	}
	srv, err := web.New(ctx, web.Options{Run: run, Stream: stream, Approvals: approvals, Listener: ln})
	if err != nil {
		return err
	}
	fmt.Fprintln(d.stdout, srv.URL())
	if so.open {
		_ = exec.Command("xdg-open", srv.URL()).Start() // the address is printed either way
	}
	sigs, stop := d.signals()
	defer stop()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return srv.Serve()
}

// sharer is /serve for a REPL run: on first use it puts the live session
// on a page on the loopback, steered through the REPL (d), and returns its
// address (the same one after).
func sharer(ctx context.Context, run *app.Run, share *web.Share) func(app.Driver) (string, error) {
	var once sync.Once
	var url string
	var err error
	return func(d app.Driver) (string, error) {
		once.Do(func() {
			var ln net.Listener
			if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				return
			}
			share.Stream.Follow(func() int { return run.Agent().Session().Len() })
			run.Listeners().Add(share.Stream)
			share.Join()
			var srv *web.Server
			if srv, err = web.New(ctx, web.Options{Run: run, Stream: share.Stream, Approvals: share.Approvals, Driver: d, Listener: ln}); err != nil {
				ln.Close()
				return
			}
			url = srv.URL()
			go func() { _ = srv.Serve() }()
		})
		return url, err
	}
}
