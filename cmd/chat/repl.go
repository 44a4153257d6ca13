package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/mcpclient"
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
	if err := resolveEndpoint(ctx, d, &cfg); err != nil {
		return err
	}
	ls := listener.NewList()
	interloper := control.NewInterloper()
	approvals := tui.NewApprovals()
	w, err := wire(ctx, d, o, cfg, changed, ls, control.NewCancellable(), interloper, approvals)
	if err != nil {
		return err
	}
	defer w.close()
	a, host := w.agent, w.host
	w.start(ctx, cfg, probeAtStart)
	// From here on the screen is the program's: hooks report into it.
	w.voice.hooks.Report = func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) }
	w.voice.hooks.Retrust = retrust(d, approvals)
	if w.voice.untrusted != nil {
		go askTrust(ctx, d, approvals, w.voice)
	}
	defs := w.ext.defs
	models := client(cfg, a.Model()).Models
	resumed := (o.cont || o.resume != "") && a.Session().Len() > 1
	err = tui.Run(ctx, tui.Options{
		Resumed:     resumed,
		Draft:       unansweredDraft(a.Session().Messages(), resumed),
		Agent:       a,
		Interloper:  interloper,
		Models:      models,
		HistoryPath: historyPath(d.getenv),
		Fullscreen:  o.fullscreen,
		NoColor:     d.getenv("NO_COLOR") != "",
		Sessions:    host,
		Agents:      slices.Sorted(maps.Keys(defs)),
		Approvals:   approvals,
		Skills:      w.ext.skills,
		MCP:         mcpStates(w.ext.mcp),
		Tools:       w.toolStates,
		Sandbox:     w.shell.Describe,
		Hooks:       w.voice.hookList,
		Shell:       personShell(d, host.cwd),
		Workdir:     host.cwd,
		Files:       func(depth int) ([]string, error) { return tool.ProjectFiles(host.cwd, maxMentionFiles, depth) },
		Project:     projectFiles(w.voice.instructions),
		Rewind:      rewinder(w),
		Price:       priceOf(cfg),
		PriceSource: func(model string) string {
			p, ok := modelPrice(cfg, model)
			if !ok {
				return "none known for " + model + " (the catalog does not list it; [models.NAME] input_per_mtok and output_per_mtok set one)"
			}
			return fmt.Sprintf("%s: $%g input, $%g cached input, $%g output per million tokens", p.Source, p.Input, p.CachedInput, p.Output)
		},
		AgentName:   w.name,
		SwitchAgent: func(name string) error { return w.switchAgent(cfg, name) },
		// The first frame does not wait for a server to start: they connect
		// behind it, and their tools join as they come.
		// The box starts behind the first frame too, and its notice says
		// which box is in force before anything runs in it.
		Listening: func() {
			if w.shell.Boxed() {
				go w.shell.Describe()
			}
			w.connectEager(ctx, func(s string) { ls.Emit(listener.Notice{Text: "⚠ " + s}) })
		},
	}, ls)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if id := host.id(); id != "" && a.Session().Len() > 1 {
		fmt.Fprintf(d.stderr, "session saved · chat --resume %s\n", session.ShortID(id))
	}
	return nil
}

// maxMentionFiles bounds the paths @ completion offers.
const maxMentionFiles = 100_000

// mcpStates lists the MCP servers for /mcp (nil without any).
func mcpStates(s *mcpclient.Servers) func() []tui.MCPState {
	if s == nil {
		return nil
	}
	return func() []tui.MCPState {
		var out []tui.MCPState
		for _, st := range s.States() {
			out = append(out, tui.MCPState{Name: st.Name, Transport: st.Transport, Status: st.Status, Tools: st.Tools})
		}
		return out
	}
}

// historyPath is $XDG_STATE_HOME/chat/history.jsonl (~/.local/state/… without it).
func historyPath(getenv func(string) string) string { return xdg.State.Chat(getenv, "history.jsonl") }

// unansweredDraft is the question a resumed session ends with, unanswered
// (chat stopped before it was answered): it goes back into the input.
func unansweredDraft(msgs []session.Message, resumed bool) string {
	if n := len(msgs); resumed && n > 0 && msgs[n-1].Role == session.RoleUser && msgs[n-1].Unanswered {
		return msgs[n-1].Content
	}
	return ""
}
