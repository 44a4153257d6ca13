package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/acpserver"
	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool/sandbox"
)

// newACPCmd builds `chat acp`; runF (nil: runACP) gets the settings the
// command line and the config make, as the root command's does.
func newACPCmd(d deps, o *rootOptions, runF runFunc) *cobra.Command {
	if runF == nil {
		runF = runACP
	}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Run as an agent for editors (Agent Client Protocol on stdin/stdout)",
		Long: `chat acp speaks the Agent Client Protocol (agentclientprotocol.com) on stdin and
stdout, for editors that drive agents: Zed, JetBrains IDEs, Neovim (CodeCompanion,
avante). Each session the editor opens is a chat session in its working directory,
saved like any other (chat --resume ID continues it in the terminal). The sandbox,
the deny lists, hooks and approvals work as in the REPL: the editor asks you.

Beyond the protocol: the extension method _chat/steer {sessionId, text} sends text
into the running turn, as typing during a turn does in the REPL.`,
		Example: `  Zed (settings.json):  "agent_servers": {"chat": {"command": "chat", "args": ["acp"]}}`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd, d, o)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), d, o, cfg, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (env CHAT_MODEL)")
	f.StringVar(&o.baseURL, "base-url", "", "API base URL (env OPENAI_BASE_URL)")
	f.StringVar(&o.agent, "agent", "", "start sessions with a named agent definition")
	f.StringVar(&o.sandbox, "sandbox", "", "where shell commands run: workspace-write (default), read-only, or off")
	f.IntVar(&o.maxSteps, "max-steps", steps.Default.Max(), "tool calls allowed per turn before the answer is synthesized; 0 = unlimited")
	f.Float64Var(&o.maxCost, "max-cost", 0, "US dollars a turn may spend before its answer is synthesized; 0 = no bound")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "tokens a turn may spend before its answer is synthesized; 0 = no bound")
	f.IntVar(&o.ctxWin, "context-window", 0, "the model's context window in tokens, when the server does not say")
	f.BoolVar(&o.noProject, "no-project-instructions", false, "leave the project's AGENTS.md (or CLAUDE.md) files out")
	return cmd
}

// runACP serves editors on stdin/stdout. Only the protocol writes to
// stdout: every note, warning and log goes to stderr, which editors keep
// in their logs.
func runACP(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool) error {
	proto := d.stdout
	d.stdout = d.stderr
	if err := resolveEndpoint(ctx, d, &cfg); err != nil {
		return err
	}
	srv := acpserver.New(acpserver.Options{Name: "chat", Version: version(), Log: d.stderr,
		List: func(cwd string) ([]acpserver.Saved, error) {
			all, err := session.Store{Dir: session.DefaultDir(d.getenv)}.List()
			var out []acpserver.Saved
			for _, s := range all {
				if cwd == "" || s.Dir == cwd {
					out = append(out, acpserver.Saved{ID: s.ID, Cwd: s.Dir, Title: s.Title, Updated: s.Updated})
				}
			}
			return out, err
		},
		// A session lives as long as chat acp, not as the request that
		// opened it: its window probe, MCP servers and hooks were cut
		// when session/new returned.
		Open: func(_ context.Context, r acpserver.OpenRequest) (*acpserver.Session, error) {
			return openACP(ctx, d, *o, cfg, changed, r)
		}})
	return srv.Serve(ctx, d.stdin, proto)
}

// openACP builds one editor session with the wiring print mode and the
// REPL use, in the directory the editor gives.
func openACP(ctx context.Context, d deps, o rootOptions, cfg config.Config, changed func(string) bool, r acpserver.OpenRequest) (*acpserver.Session, error) {
	if st, err := os.Stat(r.Cwd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the session's folder %s is not a directory here", r.Cwd)
	}
	d.workdir = func() (string, error) { return r.Cwd, nil }
	o.resume, o.cont, o.ifBusy = r.Load, false, "exit" // never two writers in one session
	cfg.MCP = maps.Clone(cfg.MCP)
	for _, m := range r.MCP {
		name, mc := editorMCP(cfg.MCP, m)
		if err := config.CheckMCP(name, mc); err != nil {
			fmt.Fprintf(d.stderr, "chat: the editor's MCP server %q is left out: %v\n", m.Name, err)
			continue
		}
		if cfg.MCP == nil {
			cfg.MCP = map[string]config.MCPConfig{}
		}
		cfg.MCP[name] = mc
	}
	ls := listener.NewList(r.Listener)
	in := control.NewInterloper()
	w, err := wire(ctx, d, &o, cfg, changed, ls, control.NewCancellable(), in, r.Approver)
	if err != nil {
		return nil, err
	}
	w.start(ctx, cfg, probeAtStart)
	w.voice.hooks.Report = func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) }
	if w.voice.untrusted != nil {
		ls.Emit(listener.Notice{Text: untrustedNote(w.voice.untrusted)})
	}
	w.connectEager(ctx, func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) })
	s := &acpserver.Session{ID: w.host.id(), Agent: w.agent, Interloper: in,
		Save:     func() { w.host.save(w.agent.Session()) },
		Close:    w.close,
		Commands: acpCommands(w)}
	if s.ID == "" {
		w.close()
		return nil, fmt.Errorf("the session could not be saved")
	}
	s.Modes, s.Mode = acpModes(w)
	if len(s.Modes) > 0 {
		s.SetMode = func(id string) error { return setACPMode(w, cfg, id) }
	}
	return s, nil
}

// editorMCP is a server the editor passes, as a config entry connected at
// start (the editor's servers are meant to be there). A name the config
// already uses gets a suffix.
func editorMCP(have map[string]config.MCPConfig, m acpserver.MCPServer) (string, config.MCPConfig) {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, m.Name)
	name = strings.ReplaceAll(name, "__", "_")
	if len(name) > 20 {
		name = name[:20]
	}
	for base, i := name, 2; ; i++ {
		if _, taken := have[name]; !taken {
			break
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name, config.MCPConfig{Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers,
		Eager: true, Description: "passed by the editor"}
}

// acpModes are the session modes: the sandbox's box modes, each with
// every persona, so one choice in the editor says both. A run without a
// box offers the personas alone.
func acpModes(w *wired) ([]acpserver.Mode, string) {
	personas := append([]string{""}, slices.Sorted(maps.Keys(w.ext.defs))...)
	var boxes []sandbox.Mode
	if w.shell.Boxed() {
		boxes = []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.ReadOnly}
	}
	if len(boxes) == 0 && len(personas) == 1 {
		return nil, ""
	}
	if len(boxes) == 0 {
		boxes = []sandbox.Mode{sandbox.Off}
	}
	var modes []acpserver.Mode
	for _, box := range boxes {
		for _, p := range personas {
			modes = append(modes, acpMode(box, p, w.ext.defs[p]))
		}
	}
	current := sandbox.Off
	if w.shell.Boxed() {
		current = sandbox.WorkspaceWrite
		if w.shell.ReadOnly() {
			current = sandbox.ReadOnly
		}
	}
	return modes, modeID(current, w.name)
}

func acpMode(box sandbox.Mode, persona string, def agent.Definition) acpserver.Mode {
	var name, desc []string
	switch box {
	case sandbox.WorkspaceWrite:
		name, desc = append(name, "Workspace write"), append(desc, "commands run without asking in the sandbox and write only in the working directory")
	case sandbox.ReadOnly:
		name, desc = append(name, "Read only"), append(desc, "commands run without asking in a sandbox that writes nowhere (plan, review)")
	}
	if persona != "" {
		name = append(name, persona)
		if def.Description != "" {
			desc = append(desc, persona+": "+def.Description)
		}
	} else if box == sandbox.Off {
		name = append(name, "default agent")
	}
	return acpserver.Mode{ID: modeID(box, persona), Name: strings.Join(name, " · "), Description: strings.Join(desc, "; ")}
}

// modeID is "workspace-write", "read-only/reviewer", or "reviewer" where
// there is no box.
func modeID(box sandbox.Mode, persona string) string {
	switch {
	case box == sandbox.Off && persona == "":
		return defaultAgentName
	case box == sandbox.Off:
		return persona
	case persona == "" || persona == defaultAgentName:
		return string(box)
	}
	return string(box) + "/" + persona
}

// setACPMode switches the sandbox mode and the persona an id names.
func setACPMode(w *wired, cfg config.Config, id string) error {
	box, persona := "", id
	if w.shell.Boxed() {
		box, persona, _ = strings.Cut(id, "/")
	}
	if persona == "" {
		persona = defaultAgentName
	}
	if box != "" {
		m, err := sandbox.ParseMode(box)
		if err != nil {
			return err
		}
		if err := w.shell.SetMode(m); err != nil {
			return err
		}
	}
	if persona == w.name || persona == defaultAgentName && w.name == "" {
		return nil
	}
	if err := w.switchAgent(cfg, persona); err != nil {
		return err
	}
	w.name = persona
	if persona == defaultAgentName {
		w.name = ""
	}
	return nil
}

// acpCommands are the REPL's /-commands that make sense without a screen.
func acpCommands(w *wired) []acpserver.Command {
	a := w.agent
	return []acpserver.Command{
		{Name: "compact", Description: "summarize the earlier turns to free the context window", Hint: "what to keep (optional)",
			Run: func(ctx context.Context, args string) (acpserver.CommandResult, error) {
				return acpserver.CommandResult{Turn: a.Compact(ctx, args)}, nil
			}},
		{Name: "context", Description: "what the next request carries, by part",
			Run: func(context.Context, string) (acpserver.CommandResult, error) {
				return acpserver.CommandResult{Show: a.ContextReport().Report(a.ContextSize(), projectFiles(w.voice.instructions))}, nil
			}},
		{Name: "init", Description: "write an AGENTS.md for this repository (you approve the write)",
			Run: func(context.Context, string) (acpserver.CommandResult, error) {
				return acpserver.CommandResult{Prompt: agent.InitPrompt}, nil
			}},
		{Name: "tools", Description: "the tools and whether they ask",
			Run: func(context.Context, string) (acpserver.CommandResult, error) {
				var b strings.Builder
				b.WriteString(w.shell.Describe() + "\n")
				for _, t := range w.toolStates() {
					fmt.Fprintf(&b, "\n- `%s`: %s", t.Name, t.State)
				}
				return acpserver.CommandResult{Show: b.String()}, nil
			}},
	}
}

// version is the module's version ("devel" for a build from a checkout).
