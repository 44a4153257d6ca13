package printmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm/pricing"
	"github.com/chatrepl/chat/session"
)

// Options is one print-mode run: the run's spec, what to ask and how to
// answer.
type Options struct {
	Spec   app.Spec
	Prompt string    // -p; "" with a piped stdin
	Stdin  io.Reader // piped input appended to the prompt (nil: none)
	Files  []string  // attached to the prompt (images, text)
	Schema string    // a JSON Schema file the answer must match
	// JSON writes the event stream as JSON lines; Verbose adds the
	// reasoning and the tokens on Stderr.
	JSON, Verbose bool
	// Plan asks for a plan (nothing is written); Go carries out the
	// session's plan.
	Plan, Go bool
	// Review, when set, reviews the changes (chat review): Base "" the
	// working tree's, else the branch's against it; nothing is written.
	Review *Review
	// DryRun says what the request would carry, by part, and sends
	// nothing.
	DryRun         bool
	Stdout, Stderr io.Writer
	// Signals delivers SIGINT/SIGTERM; its func undoes the subscription.
	Signals func() (<-chan os.Signal, func())
	// Exit ends the process when a shutdown hangs.
	Exit func(code int)
	// Reserved names the REPL's own commands: a prompt file of such a
	// name never runs as it, here either (nil: only /compact).
	Reserved func(name string) bool
}

// Review is what chat review looks at.
type Review struct {
	Base string
	JSON bool // the findings as JSON objects, one a line
}

// ExitCode is how a run ended when it said so itself (the listeners
// showed the error, or it was interrupted): the process exits with it.
type ExitCode int

func (c ExitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// maxPipedInput bounds what print mode reads from stdin.
const maxPipedInput = 10 << 20

// shutdownGrace bounds the shutdown after a SIGINT: saving, stopping the
// MCP servers and the sandbox.
const shutdownGrace = 10 * time.Second

// windowProbeWait bounds how long print mode waits for the server to say
// its context window.
const windowProbeWait = 1500 * time.Millisecond

// ExitNotSaved is the status of a run that answered (the answer was
// printed) but could not save its session whole: --continue would not
// find the turn.
const ExitNotSaved ExitCode = 3

// ExitNoAnswer is the status of a turn that ended without error but with
// nothing to print: an empty reply is never success.
const ExitNoAnswer ExitCode = 4

// compactCommand reads "/compact [TEXT]": the instructions, and whether
// it is one.
func compactCommand(prompt string) (string, bool) {
	p := strings.TrimSpace(prompt)
	rest, ok := strings.CutPrefix(p, "/compact")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\n' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// Run answers one prompt. It returns nil, ExitCode(1) after an error the
// listeners showed, ExitCode(130) when interrupted, ExitNotSaved when the
// session could not be saved, or an error nobody showed yet. A SIGINT cancels the run cleanly at any moment (stream
// closed, output ended with a newline, session saved).
func Run(ctx context.Context, o Options) (err error) {
	prompt, err := readPrompt(o)
	if (o.Go || o.Review != nil) && errors.Is(err, errNothingToAsk) {
		prompt, err = "", nil // the plan is what to do; the diff what to review
	}
	if err != nil {
		return err
	}
	if o.Go {
		prompt = strings.TrimSpace(app.GoPrompt + "\n\n" + prompt)
	}
	var files []session.FilePart
	for _, path := range o.Files {
		part, err := session.Attach(path)
		if err != nil {
			return err
		}
		files = append(files, part)
	}
	spec := o.Spec
	if err := app.ResolveEndpoint(ctx, spec.Env, &spec.Config); err != nil {
		return err
	}
	cfg := spec.Config
	// Deltas are coalesced to at most a frame's worth per write: the
	// first token still goes out at once, and a fast stream costs one
	// write per frame instead of one per token.
	var out *listener.RateLimited
	answerTo := o.Stdout
	if o.Schema != "" || o.Review != nil {
		answerTo = io.Discard // the validated JSON is printed at the end
	}
	if o.JSON {
		out = listener.NewRateLimited(listener.NewJSONL(o.Stdout), 60)
	} else {
		out = listener.NewRateLimited(listener.NewTerminal(answerTo, o.Stderr, o.Verbose), 60)
	}
	ls := listener.NewList(out)
	if o.Verbose {
		tokens := listener.NewTokenLog(o.Stderr)
		tokens.Local = pricing.IsLocal(cfg.BaseURL)
		ls.Add(tokens)
	}
	// One SIGINT (or SIGTERM) at any moment ends the run: during start-up
	// (a slow MCP server, the model list) it cancels the run's context,
	// during the turn the turn; either way the session is saved, the
	// servers are stopped and the exit status is 130. Only a shutdown that
	// hangs is cut short.
	cancel := control.NewCancellable()
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	sigs, stop := o.Signals()
	defer stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case sig := <-sigs:
			reason := "interrupted (ctrl+c)"
			if sig == syscall.SIGTERM {
				reason = "terminated (SIGTERM)"
			}
			stopRun(errors.New(reason))
			cancel.Cancel(reason)
		case <-done:
			return
		}
		select {
		case <-time.After(shutdownGrace):
			fmt.Fprintln(o.Stderr, "chat: the shutdown did not finish in time; exiting")
			o.Exit(130)
		case <-done:
		}
	}()
	// No approver: what needs approval is refused unless --yes.
	spec.Listeners, spec.Cancellable = ls, cancel
	// Nobody is there to fill in a server's form: it is declined, and said.
	spec.Elicitor = app.Declining(func(s string) { fmt.Fprintln(o.Stderr, "chat: "+s) }, "print mode cannot ask you")
	run, err := app.Open(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return ExitCode(130)
		}
		return err
	}
	defer func() {
		if saveErr := run.Close(); saveErr != nil && err == nil {
			err = ExitNotSaved // the answer is out; the warning said why
		}
	}()
	// Print mode ends with its turn: what still runs in the background is
	// stopped first, and said.
	defer func() {
		if n := run.Jobs().StopAll(); n == 1 {
			fmt.Fprintln(o.Stderr, "chat: stopped 1 background job that was still running (print mode ends with its turn)")
		} else if n > 1 {
			fmt.Fprintf(o.Stderr, "chat: stopped %d background jobs that were still running (print mode ends with its turn)\n", n)
		}
	}()
	if note := run.UntrustedNote(); note != "" {
		fmt.Fprintln(o.Stderr, note)
	}
	if o.Schema != "" {
		schema, err := os.ReadFile(o.Schema)
		if err != nil {
			return err
		}
		if _, err := app.CompileSchema(schema); err != nil {
			return fmt.Errorf("%s: %w", o.Schema, err)
		}
		run.SetSchema(schema)
	}
	// A local server is asked its window as the REPL asks: a llama.cpp
	// or Ollama window is what the server runs, not what a table says.
	// It is asked when the first request needs it (which form of the tools
	// to offer, whether to compact), and waited for a little, no longer.
	// A hosted model's window is the table's or the catalog's, at once.
	probe := app.ProbeNever
	if pricing.IsLocal(cfg.BaseURL) {
		probe = app.ProbeWhenNeeded
	}
	run.Start(ctx, probe)
	run.AwaitWindow(windowProbeWait)
	switch {
	case o.Go && !run.Planning():
		return errors.New("--go carries out the plan of a session in plan mode: --continue (or --resume ID) one that planned with --plan")
	case o.Go:
		_ = run.SetPlanning(false)
	case o.Review != nil:
		if err := run.SetReviewing(true); err != nil && !run.Planning() {
			return fmt.Errorf("a review runs in the read-only box, and there is none here: %w", err)
		}
		text, files, err := run.ReviewRequest(ctx, o.Review.Base)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Stderr, "reviewing %d changed file%s (nothing is written: read-only box, no writing tools)\n", files, map[bool]string{true: "", false: "s"}[files == 1])
		prompt = text
		run.SetSchema(app.ReviewSchema)
	case o.Plan:
		if err := run.SetPlanning(true); err != nil && !run.Planning() {
			return err // asked to plan: never a run that may write instead
		} else if err != nil {
			fmt.Fprintln(o.Stderr, "chat: plan mode:", err)
		}
	}
	run.ConnectEager(ctx, func(s string) { fmt.Fprintln(o.Stderr, s) })
	if ctx.Err() != nil { // interrupted before the turn: nothing was asked
		return ExitCode(130)
	}
	if o.DryRun {
		run.SettleWindow(ctx)
		report := run.ContextReport().Report(0, run.ProjectFiles())
		report = strings.Replace(report, "\n/compact summarizes the earlier turns", "", 1)
		fmt.Fprintf(o.Stdout, "%s\n  this prompt ~%d\nnothing was sent (--dry-run)\n", report, session.TextTokens(len(prompt)))
		return nil
	}
	if instructions, ok := compactCommand(prompt); ok {
		// /compact [TEXT] runs, as in the REPL: with --continue it makes room.
		o2 := run.Compact(ctx, instructions).Run()
		switch {
		case errors.Is(o2.Err, control.ErrCancelled):
			return ExitCode(130)
		case errors.Is(o2.Err, app.ErrNothingToCompact):
			fmt.Fprintln(o.Stderr, "chat: "+o2.Err.Error()+" (continue a session with --continue or --resume ID)")
			return nil
		case o2.Err != nil:
			return ExitCode(1)
		}
		return nil
	}
	// A prompt file's command (/NAME args) runs its prompt, as in the REPL.
	model := ""
	reserved := func(name string) bool { return name == "compact" || o.Reserved != nil && o.Reserved(name) }
	if c, args, ok := run.PromptCommand(prompt, reserved); ok {
		if prompt, err = run.ExpandPromptFile(c, args); err != nil {
			return err
		}
		model = c.Model
	}
	if prompt, files, err = run.ExpandInput(ctx, prompt, files); err != nil {
		return err
	}
	o2 := run.NewTurnWith(ctx, model, prompt, files...).Run() // the run saves what it changed
	res, err := o2.Result, o2.Err
	switch {
	case errors.Is(err, control.ErrCancelled):
		return ExitCode(130)
	case err != nil:
		return ExitCode(1) // the listeners have shown it
	}
	if strings.TrimSpace(res.Content) == "" && !res.Synthesized {
		// Nothing to print is not an answer: a script must not take it for one.
		fmt.Fprintln(o.Stderr, "chat: the model gave no answer (an empty reply; with a small context window the answer may have had no room: /compact with --continue, or a larger window)")
		return ExitNoAnswer
	}
	if run.Planning() {
		fmt.Fprintln(o.Stderr, "plan mode: nothing was changed. chat --continue -p \"…\" asks for changes to the plan; chat --continue --go carries it out")
	}
	if o.Review != nil {
		return writeFindings(o, res.Content)
	}
	if schema := run.Schema(); len(schema) > 0 && !o.JSON {
		v, err := app.ParseStructured(schema, res.Content)
		if err != nil {
			// The answer is not lost: it goes to stderr with what to try.
			fmt.Fprintf(o.Stderr, "the model's answer, which does not match the schema:\n%s\n\n", res.Content)
			return fmt.Errorf("%w; try again (models drift), make the schema simpler, or use a model with structured output support", err)
		}
		return writeJSON(o.Stdout, v)
	}
	return nil
}

var errNothingToAsk = errors.New(`nothing to ask: pass -p "…" or pipe text in`)

// readPrompt is -p, with piped stdin appended (or alone).
func readPrompt(o Options) (string, error) {
	prompt := o.Prompt
	if o.Stdin != nil {
		data, err := io.ReadAll(io.LimitReader(o.Stdin, maxPipedInput+1))
		if err != nil {
			return "", fmt.Errorf("reading stdin: %w", err)
		}
		if len(data) > maxPipedInput {
			return "", fmt.Errorf("stdin is over %d MiB; pass a smaller input", maxPipedInput>>20)
		}
		if piped := strings.TrimRight(string(data), "\n"); piped != "" {
			if prompt == "" {
				prompt = piped
			} else {
				prompt += "\n\n" + piped
			}
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", errNothingToAsk
	}
	return prompt, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeFindings prints a review's findings, most severe first: a line
// each with its file and line (--json: a JSON object each).
func writeFindings(o Options, answer string) error {
	findings, err := app.ParseFindings(answer)
	if err != nil {
		fmt.Fprintf(o.Stderr, "the model's review, which is not a list of findings:\n%s\n\n", answer)
		return fmt.Errorf("%w; try again, or use a model with structured output support", err)
	}
	if o.Review.JSON {
		enc := json.NewEncoder(o.Stdout)
		enc.SetEscapeHTML(false)
		for _, f := range findings {
			f.Title, f.Detail, f.File = listener.String(f.Title), listener.String(f.Detail), listener.String(f.File)
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
		return nil
	}
	if len(findings) == 0 {
		_, err := fmt.Fprintln(o.Stdout, "no findings")
		return err
	}
	for _, f := range findings {
		fmt.Fprintf(o.Stdout, "%-8s %s:%d  %s\n", f.Severity, listener.VisibleString(f.File), f.Line, listener.VisibleString(f.Title))
		if f.Detail != "" {
			for _, l := range strings.Split(listener.VisibleString(strings.TrimSpace(f.Detail)), "\n") {
				fmt.Fprintf(o.Stdout, "         %s\n", l)
			}
		}
	}
	return nil
}
