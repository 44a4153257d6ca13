package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/browser"
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
	f.BoolVar(&so.open, "open", false, "open the page in the browser ($BROWSER, else xdg-open)")
	withRunFlags(f, o, "model", "base-url", "agent", "continue", "resume", "worktree", "sandbox", "allow-domain", "max-steps", "context-window")
	o.ifBusy = "new"
	return cmd
}

func runServe(ctx context.Context, d deps, o *rootOptions, so *serveOptions, cfg config.Config, changed func(string) bool) error {
	spec, err := runSpec(d, o, cfg, changed)
	if err != nil {
		return err
	}
	spec.Titles = true // the page is titled by it
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs, stop := d.signals()
	defer stop()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	// The browser gets a file that forwards to the sign-in link, never the
	// link itself: its argv is every local user's to read. The address
	// is printed either way.
	var forget func()
	defer func() {
		if forget != nil {
			forget()
		}
	}()
	opened := func(u string) {
		done, err := browser.OpenPrivately(d.getenv, "", u)
		if err != nil {
			fmt.Fprintln(d.stderr, "could not open a browser:", err)
		}
		forget = done
	}
	if !so.open {
		opened = nil
	}
	return web.ServeSession(ctx, spec, web.ServeOptions{Listen: so.listen, Opened: opened, URLTo: d.stdout, Warn: d.stderr})
}
