package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/internal/version"
	"github.com/chatrepl/chat/listener"
)

// deps is what commands take from the outside world, so tests can swap it.
type deps struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	stdinIsTTY     func() bool
	// stdinHasData is true for a pipe or a file: input to append to -p.
	stdinHasData func() bool
	exit         func(code int)
	// signals delivers SIGINT/SIGTERM; stop undoes the subscription.
	signals func() (<-chan os.Signal, func())
	workdir func() (string, error)
	// environ is the environment children start from (secrets removed).
	environ func() []string
	// termIn and termOut are the terminal the REPL draws on (nil: stdin
	// and stdout, unsanitized: the program writes its own sequences).
	termIn  io.Reader
	termOut io.Writer
}

func defaultDeps() deps {
	return deps{
		stdin: os.Stdin, stdout: ttySafe(os.Stdout), stderr: ttySafe(os.Stderr),
		getenv:     os.Getenv,
		stdinIsTTY: func() bool { return term.IsTerminal(int(os.Stdin.Fd())) },
		stdinHasData: func() bool {
			st, err := os.Stdin.Stat()
			return err == nil && (st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular())
		},
		exit: os.Exit,
		signals: func() (<-chan os.Signal, func()) {
			ch := make(chan os.Signal, 2)
			signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
			return ch, func() { signal.Stop(ch) }
		},
		workdir: os.Getwd,
		environ: os.Environ,
	}
}

// ttySafe is f, through a sanitizing writer when it is a terminal: what
// the commands print there (listings, notices, errors, an answer) can
// never carry a live escape sequence from a server, a model or a file.
// The REPL draws on the terminal itself and sanitizes what it shows.
func ttySafe(f *os.File) io.Writer {
	if term.IsTerminal(int(f.Fd())) {
		return listener.NewSafeWriter(f)
	}
	return f
}

// rootOptions are the flags of `chat`.
type rootOptions struct {
	prompt     string
	jsonOut    bool
	verbose    bool
	configPath string

	model, smallModel, baseURL, system string
	maxSteps                           int
	noStream                           bool
	fullscreen                         bool

	cont         bool
	resume       string
	noSave       bool
	files        []string
	agent        string
	schema       string
	plan         bool
	goPlan       bool
	serve        bool // chat --serve: the REPL session on a web page too
	yes          bool
	ctxWin       int
	sandbox      string
	allowDomains []string
	dryRun       bool
	ifBusy       string

	noProject bool
	worktree  string
	maxCost   float64
	maxTokens int
}

// runFunc runs `chat` once its flags and config are read: print mode or
// the REPL. Tests give their own to see what the command line became,
// without running anything (the GitHub CLI's runF).
type runFunc func(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error

// runChat is the real runFunc: print mode with -p or a piped stdin, else
// the REPL.
func runChat(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	if o.prompt != "" || o.goPlan || !d.stdinIsTTY() {
		return runPrint(ctx, d, o, cfg, changed)
	}
	return runREPL(ctx, d, o, cfg, changed)
}

// templateFuncs registers cobra's template functions once: they are
// global, and commands are built concurrently (in-process tests).
var templateFuncs sync.Once

func newRootCmd(d deps, runF runFunc) *cobra.Command {
	if runF == nil {
		runF = runChat
	}
	o := &rootOptions{}
	cmd := &cobra.Command{
		Version: "set", // --version: the line is made only when asked (versionLine reads the build info)
		Use:     "chat",
		Short:   "Chat with an LLM agent over any OpenAI-compatible endpoint",
		Long: `chat talks to any OpenAI-compatible endpoint (OpenAI, OpenRouter, Groq, DeepSeek,
vLLM, llama.cpp, Ollama, LM Studio …). The model can read, write and search files in the
working directory, and run commands in a sandbox (bubblewrap or namespaces, seccomp and
Landlock: writes only in the working directory, no network, no secrets); a step budget
bounds each turn.

With -p, or when stdin is not a terminal, chat answers once and exits:
exit status 0 on success, 1 on error, 130 when interrupted.`,
		Example: `  chat -p "what does this repo do?"
  git diff | chat -p "write a commit message for this"
  OPENAI_BASE_URL=http://localhost:11434/v1 chat --model llama3.1`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.ifBusy != "new" && o.ifBusy != "exit" {
				return fmt.Errorf("--if-busy %q: use new or exit", o.ifBusy)
			}
			cfg, err := loadConfig(cmd, d, o)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), d, o, cfg, cmd.Flags().Changed)
		},
	}
	templateFuncs.Do(func() { cobra.AddTemplateFunc("versionLine", version.Line) }) // a global map of cobra's
	cmd.SetVersionTemplate("{{versionLine}}\n")
	f := cmd.Flags()
	f.AddFlagSet(runFlags(o))
	f.StringVarP(&o.prompt, "prompt", "p", "", "answer this prompt and exit (print mode)")
	f.BoolVar(&o.jsonOut, "json", false, "print mode: write the event stream as JSON lines")
	f.BoolVar(&o.dryRun, "dry-run", false, "print mode: say what the request would carry (system prompt, tools, history, the prompt) against the model's window, and send nothing")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also show the model's reasoning and token counts on stderr")
	f.StringVar(&o.system, "system", "", "system prompt")
	f.BoolVar(&o.noStream, "no-stream", false, "ask for whole answers instead of streams")
	f.BoolVar(&o.fullscreen, "fullscreen", false, "use the whole screen (alternate screen) instead of the inline REPL")
	f.BoolVar(&o.noSave, "no-save", false, "do not save this run's session")
	f.StringVar(&o.ifBusy, "if-busy", "new", "when the session to continue is in use by another chat: new (start a new session) or exit")
	f.StringArrayVarP(&o.files, "file", "f", nil, "print mode: attach a file to the prompt (images, text; repeatable)")
	f.BoolVarP(&o.yes, "yes", "y", false, "approve every tool call (writes, and shell commands outside the sandbox's reach); never leaves the sandbox")
	f.StringVar(&o.schema, "schema", "", "print mode: a JSON Schema file; the answer must match it and is printed as JSON")
	f.BoolVar(&o.plan, "plan", false, "plan mode: the agent reads, searches and runs read-only commands and answers with a plan; nothing is written")
	f.BoolVar(&o.serve, "serve", false, "REPL: show this session on a web page too (as /serve does; prints its address)")
	f.BoolVar(&o.goPlan, "go", false, "with --continue: leave plan mode and carry out the session's plan (-p adds to it)")
	cmd.PersistentFlags().StringVar(&o.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/chat/config.toml)")
	cmd.AddCommand(newConfigCmd(d, o), newVersionCmd(d), newSandboxCmd(d, o), newSessionsCmd(d, o), newAgentsCmd(d, o), newModelsCmd(d, o), newMCPCmd(d, o, nil),
		newCheckpointsCmd(d, o, nil), newRewindCmd(d, o, nil), newHooksCmd(d, o), newCommandsCmd(d), newReviewCmd(d, o), newACPCmd(d, o, nil), newServeCmd(d, o), newWorktreeCmd(d, o))
	cmd.SetIn(d.stdin)
	cmd.SetOut(d.stdout)
	cmd.SetErr(d.stderr)
	cmd.SetContext(context.Background())
	return cmd
}

// runFlags are the flags of a run, bound to o: chat takes them all, and
// chat serve and chat acp those they name (withRunFlags).
func runFlags(o *rootOptions) *pflag.FlagSet {
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.StringVar(&o.model, "model", "", "model name (env CHAT_MODEL)")
	f.StringVar(&o.smallModel, "small-model", "", "model for session titles, compaction summaries and the synthesized answer (env CHAT_SMALL_MODEL; default: the model)")
	f.StringVar(&o.baseURL, "base-url", "", "API base URL, e.g. http://localhost:8080/v1 (env OPENAI_BASE_URL)")
	f.IntVar(&o.maxSteps, "max-steps", steps.Default.Max(), "tool calls allowed per turn before the answer is synthesized; 0 = unlimited")
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the latest session of this directory")
	f.StringVarP(&o.resume, "resume", "r", "", "resume the session with this id (a unique prefix is enough)")
	f.StringVar(&o.agent, "agent", "", "use a named agent definition (chat agents list)")
	f.StringVar(&o.sandbox, "sandbox", "", "where shell commands run: workspace-write (default), read-only, or off (the policy and prompts decide)")
	f.StringArrayVar(&o.allowDomains, "allow-domain", nil, "a host boxed commands may reach through chat's proxy (example.org, *.example.org, or an IP address; repeatable)")
	f.StringVarP(&o.worktree, "worktree", "w", "", "run in the git worktree NAME (made on a new branch chat/NAME beside the repository, or reused); chat worktree lists, diffs, merges and removes them")
	f.BoolVar(&o.noProject, "no-project-instructions", false, "leave the project's AGENTS.md (or CLAUDE.md) files out of the system prompt")
	f.IntVar(&o.ctxWin, "context-window", 0, "the model's context window in tokens, when the server does not say")
	f.Float64Var(&o.maxCost, "max-cost", 0, "US dollars a turn may spend (priced models) before its answer is synthesized; 0 = no bound")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "tokens a turn may spend before its answer is synthesized; 0 = no bound")
	return f
}

// withRunFlags adds the named run flags to f.
func withRunFlags(f *pflag.FlagSet, o *rootOptions, names ...string) {
	all := runFlags(o)
	for _, n := range names {
		f.AddFlag(all.Lookup(n))
	}
}

func loadConfig(cmd *cobra.Command, d deps, o *rootOptions) (config.Config, error) {
	changed := cmd.Flags().Changed
	fl := config.Flags{
		Model: given(changed, "model", &o.model), SmallModel: given(changed, "small-model", &o.smallModel), BaseURL: given(changed, "base-url", &o.baseURL),
		System: given(changed, "system", &o.system), MaxSteps: given(changed, "max-steps", &o.maxSteps),
		NoStream: given(changed, "no-stream", &o.noStream), Yes: given(changed, "yes", &o.yes),
		ContextWindow: given(changed, "context-window", &o.ctxWin), Sandbox: given(changed, "sandbox", &o.sandbox),
		NoProjectInstructions: given(changed, "no-project-instructions", &o.noProject),
		MaxCost:               given(changed, "max-cost", &o.maxCost), MaxTurnTokens: given(changed, "max-tokens", &o.maxTokens),
		AllowDomains: o.allowDomains,
	}
	return loadConfigFile(d, o, fl)
}

// given is v when the flag name was given on the command line, else nil
// (the config then says).
func given[T any](changed func(string) bool, name string, v *T) *T {
	if changed(name) {
		return v
	}
	return nil
}

// loadConfigFile reads the config: the default path may be missing, a
// path given with --config may not.
func loadConfigFile(d deps, o *rootOptions, fl config.Flags) (config.Config, error) {
	if o.configPath != "" {
		if _, err := os.Stat(o.configPath); err != nil {
			return config.Config{}, fmt.Errorf("--config %s: %w", o.configPath, err)
		}
	}
	return config.Load(configPath(d, o), d.getenv, fl)
}

func configPath(d deps, o *rootOptions) string {
	if o.configPath != "" {
		return o.configPath
	}
	return config.DefaultPath(d.getenv)
}

func newVersionCmd(d deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			io.WriteString(d.stdout, version.Line()+"\n")
		},
	}
}
