package main

import (
	"context"
	"errors"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/tui"
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
	return tui.RunSession(ctx, spec, tui.SessionOptions{
		HistoryPath: xdg.State.Chat(d.getenv, "history.jsonl"),
		Fullscreen:  o.fullscreen, NoColor: d.getenv("NO_COLOR") != "", Plan: o.plan, Serve: o.serve,
		Input: d.termIn, Output: d.termOut, Stderr: d.stderr,
	})
}
