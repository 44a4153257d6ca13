package main

import (
	"context"
	"errors"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/printmode"
	"github.com/chatrepl/chat/tui"
)

// runPrint answers one prompt and exits: 0 ok, 1 error, 130 interrupted.
func runPrint(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	if o.plan && o.goPlan {
		return errors.New("--plan asks for a plan, --go carries one out: give one of them")
	}
	if o.serve {
		return errors.New("--serve shares the REPL's session; print mode answers once and exits (chat serve puts sessions on a page)")
	}
	spec, err := runSpec(d, o, cfg, changed)
	if err != nil {
		return err
	}
	po := printmode.Options{Spec: spec, Reserved: tui.IsCommand, Prompt: o.prompt, Files: o.files, Schema: o.schema, JSON: o.jsonOut, Verbose: o.verbose,
		Plan: o.plan, Go: o.goPlan, DryRun: o.dryRun, Stdout: d.stdout, Stderr: d.stderr, Signals: d.signals, Exit: d.exit}
	if d.stdinHasData() {
		po.Stdin = d.stdin
	}
	err = printmode.Run(ctx, po)
	if code, ok := errors.AsType[printmode.ExitCode](err); ok {
		return &exitError{code: int(code)}
	}
	return err
}
