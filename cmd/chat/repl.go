package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
)

// runREPL is a plain line-by-line REPL: one line is one turn, Ctrl+C
// cancels the running turn (the session goes on), Ctrl+D or /quit leaves.
// It stands in until the Bubble Tea interface lands.
func runREPL(ctx context.Context, d deps, o *rootOptions, cfg config.Config) error {
	if err := cfg.Resolve(ctx); err != nil {
		return &exitError{code: 1, err: err}
	}
	ls := listener.NewList(listener.NewTerminal(d.stdout, d.stderr, o.verbose))
	cancel := control.NewCancellable(nil)
	a, err := newAgent(ctx, d, cfg, ls, cancel, nil)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	sigs, stop := d.signals()
	defer stop()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(d.stdin)
		sc.Buffer(make([]byte, 64<<10), maxPipedInput)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	fmt.Fprintf(d.stderr, "chat — %s at %s. Ctrl+C cancels a turn, Ctrl+D quits.\n", cfg.Model, cfg.BaseURL)
	for {
		fmt.Fprint(d.stderr, "› ")
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(d.stderr)
				return nil
			}
			line = l
		case <-sigs:
			fmt.Fprintln(d.stderr)
			return &exitError{code: 130}
		}
		line = strings.TrimSpace(line)
		switch line {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		}
		turnDone := make(chan struct{})
		go func() {
			select {
			case <-sigs:
				a.Cancel("interrupted")
			case <-turnDone:
			}
		}()
		_, err := a.Run(ctx, line)
		close(turnDone)
		if err != nil && !errors.Is(err, control.ErrCancelled) {
			continue // the Terminal listener has shown it
		}
	}
}
