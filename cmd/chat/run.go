package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/internal/pricing"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/mcpclient"
	"github.com/chatrepl/chat/tool/sandbox"
	"github.com/chatrepl/chat/tui"
)

// defaultSystem is the system prompt when none is configured.
const defaultSystem = `You are a helpful assistant working in a terminal, in the user's working directory.
When a question is about files or code here, use the tools to look before answering; do not guess.
Answer concisely, in Markdown.`

// client is the one way cmd/chat builds a model client: every setting of
// cfg that concerns the connection, for model (empty: cfg's).
func client(cfg config.Config, model string) *llm.Client {
	if model == "" {
		model = cfg.Model
	}
	return llm.New(llm.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: model,
		HeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout})
}

// newAgent wires an agent from a resolved config.
func newAgent(ctx context.Context, d deps, cfg config.Config, v voice, s *session.Session, tools *tool.Set, ls *listener.List, c *control.Cancellable, in *control.Interloper, adverts ...agent.Advert) (*agent.Agent, error) {
	llmc := client(cfg, "")
	if cfg.Model == "" {
		models, err := llmc.Models(ctx)
		if err != nil {
			return nil, fmt.Errorf("no model is set (--model or CHAT_MODEL), and listing the server's models failed: %w", err)
		}
		if len(models) == 0 {
			return nil, fmt.Errorf("no model is set (--model or CHAT_MODEL) and %s lists none", cfg.BaseURL)
		}
		cfg.Model = models[0]
		if len(models) > 1 {
			fmt.Fprintf(d.stderr, "using model %s, the first of %d the server offers; choose with --model\n", cfg.Model, len(models))
		}
		llmc = client(cfg, "")
	}
	system := cfg.System
	if system == "" {
		system = defaultSystem
	}
	return agent.New(agent.Options{
		Client:      llmc,
		Session:     s,
		System:      system,
		Project:     v.instructions.Text,
		Hooks:       v.hooks,
		Adverts:     adverts,
		Tools:       tools,
		Listeners:   ls,
		StepLimit:   control.NewStepLimit(cfg.Steps().Max()),
		Cancellable: c,
		Interloper:  in,
		NoStream:    cfg.NoStream,
		Temperature: cfg.Temperature,
		CompactAt:   cfg.CompactShare(),
		NoRescue:    func(model string) bool { return !cfg.Rescues(model) },
		Price:       priceOf(cfg),
		Spend:       control.NewSpend(cfg.Budget.MaxTokens, cfg.Budget.MaxCost),
	}), nil
}

// toolSet is the built-in tools in the working directory, with the
// config's approval policy (and --yes) and sandbox.
func toolSet(d deps, cfg config.Config) (*tool.Set, *tool.Confinement, error) {
	wd, err := d.workdir()
	if err != nil {
		return nil, nil, err
	}
	shell, err := confinement(d, cfg, wd)
	if err != nil {
		return nil, nil, err
	}
	set := tool.NewSet(tool.Builtins(tool.Workspace{Root: wd, MaxOutput: cfg.Tools.MaxOutput, Shell: shell})...)
	set.Policy = &tool.Policy{AllowAll: cfg.Yes, AllowTools: cfg.Tools.Allow, DenyTools: cfg.Tools.Deny,
		AllowShell: cfg.Tools.AllowShell, DenyShell: cfg.Tools.DenyShell}
	return set, shell, nil
}

// confinement is where run_shell's commands run, from [sandbox] and
// --sandbox; the children's environment leaves out the API key and every
// secret-looking variable.
func confinement(d deps, cfg config.Config, wd string) (*tool.Confinement, error) {
	mode, err := sandbox.ParseMode(cfg.Sandbox.Mode)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	home := d.getenv("HOME")
	hidden := append(sandbox.DefaultHidden(home), expandPaths(append(cfg.Sandbox.Hidden,
		xdg.Config.Chat(d.getenv), xdg.Data.Chat(d.getenv), xdg.State.Chat(d.getenv)), home)...)
	slices.Sort(hidden)
	spec := sandbox.Spec{Mode: mode, Workdir: wd, Writable: expandPaths(cfg.Sandbox.Writable, home), Hidden: slices.Compact(hidden),
		Bwrap: sandbox.FindBwrap(cfg.Sandbox.Bwrap), MaxMemory: cfg.Sandbox.MaxMemoryMB << 20}
	return tool.NewConfinement(spec, childEnv(d, cfg)), nil
}

// expandPaths makes config paths absolute: ~/ is home.
func expandPaths(paths []string, home string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, "~/") && home != "" {
			p = filepath.Join(home, p[2:])
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// resolveEndpoint settles where the model is: the configuration, else a
// local server found running (Ollama, LM Studio, llama.cpp).
func resolveEndpoint(ctx context.Context, d deps, cfg *config.Config) error {
	err := cfg.Resolve(ctx)
	if !errors.Is(err, config.ErrNotConfigured) {
		return err
	}
	found, _, ok := llm.Discover(ctx, llm.LocalServers, 400*time.Millisecond)
	if !ok {
		return fmt.Errorf("%w\n(no local server answered on localhost:11434, :1234 or :8080)", err)
	}
	cfg.BaseURL = found.BaseURL
	cfg.Sources["base_url"] = "found running (" + found.Name + ")"
	fmt.Fprintf(d.stderr, "using %s at %s, found running (set OPENAI_BASE_URL or base_url to choose)\n", found.Name, found.BaseURL)
	return cfg.Resolve(ctx)
}

// contextWindow is the explicit size when configured, else what the
// table knows; probe also asks the server. It returns how to find the
// window when that takes a probe (nil: it is settled): a function that
// starts the probe once, at its first call, and returns a channel closed
// once the window is settled.
func contextWindow(ctx context.Context, cfg config.Config, a *agent.Agent, probe bool) func() <-chan struct{} {
	switch {
	case cfg.ContextWindow > 0:
		a.SetContextWindow(cfg.ContextWindow)
	case cfg.Models[a.Model()].ContextWindow > 0:
		a.SetContextWindow(cfg.Models[a.Model()].ContextWindow)
	case probe:
		return sync.OnceValue(func() <-chan struct{} {
			settled := make(chan struct{})
			go func() {
				defer close(settled)
				n, _ := client(cfg, a.Model()).ContextWindow(ctx, a.Model())
				if n = cmp.Or(n, pricing.Window(a.Model(), cfg.BaseURL)); n > 0 {
					a.SetContextWindow(n)
				}
			}()
			return settled
		})
	default:
		a.SetContextWindow(cmp.Or(llm.KnownContextWindow(a.Model()), pricing.Window(a.Model(), cfg.BaseURL)))
	}
	return nil
}

// priceOf prices a model's usage: the config's prices, the catalog's, or
// nothing (an unknown model shows tokens only).
func priceOf(cfg config.Config) func(model string, u session.Usage) (float64, bool) {
	pricing.Warm(cfg.BaseURL)
	return func(model string, u session.Usage) (float64, bool) {
		p, ok := modelPrice(cfg, model)
		if !ok {
			return 0, false
		}
		return p.Cost(u), true
	}
}

// modelPrice is what model costs where cfg points.
func modelPrice(cfg config.Config, model string) (pricing.Price, bool) {
	m := cfg.Models[model]
	return pricing.Lookup(model, cfg.BaseURL, pricing.Override{Input: m.InputPerMTok, Output: m.OutputPerMTok,
		CachedInput: m.CachedInputPerMTok, Catalog: m.Catalog})
}

// wired is a run set up: its session (and where it is saved), its tools
// and its agent.
type wired struct {
	agent *agent.Agent
	host  *sessionHost
	sess  *session.Session
	tools *tool.Set
	shell *tool.Confinement
	// checkpoints takes the checkpoints of the session in use (nil: off).
	checkpoints *checkpointer
	// defaultDef is the agent as the config makes it, without a persona.
	defaultDef agent.Definition
	name       string // the agent definition in use ("" for the default)
	ext        extended
	voice      voice
	// findWindow starts the probe for the context window, once, and
	// returns a channel closed when it is known (or known to be unknown);
	// nil when the window was settled without one.
	findWindow func() <-chan struct{}
}

// wire opens the run's session, builds the tools (asking approver, when
// there is one) and the agent, and applies --agent or the agent the
// resumed session was made with. The caller closes w.host.
func wire(ctx context.Context, d deps, o *rootOptions, cfg config.Config, changed func(string) bool,
	ls *listener.List, c *control.Cancellable, in *control.Interloper, approver tool.Approver) (*wired, error) {
	host, err := newSessionHost(d, o, cfg.Model)
	if err != nil {
		return nil, err
	}
	cp, err := newCheckpointer(d, cfg, host)
	if err != nil {
		return nil, err
	}
	if cp != nil {
		ls.Add(cp)
	}
	sess, snapshot, err := host.open(o)
	if err != nil {
		return nil, err
	}
	w := &wired{host: host, sess: sess, checkpoints: cp}
	full, shell, err := toolSet(d, cfg)
	if err != nil {
		host.close()
		return nil, err
	}
	if w.voice, err = projectVoice(d, cfg, host.cwd, host); err != nil {
		host.close()
		return nil, err
	}
	full.Hooks = w.voice.hooks
	w.shell = shell
	if shell.AsksEveryCommand() {
		fmt.Fprintf(d.stderr, "chat: %s\n", shell.Describe())
	}
	// Which box is in force, said once, when the first one has started:
	// before the first command runs (print mode's stderr, --json, the REPL).
	shell.Started = func(s string) { ls.Emit(listener.Notice{Text: s}) }
	full.Approver = approver
	if approver != nil && w.voice.hooks.Has("Notification") {
		full.Approver = notifying{approver, w.voice.hooks}
	}
	if w.ext, err = extensions(d, o, cfg, full); err != nil {
		host.close()
		return nil, err
	}
	w.tools = full.Without(cfg.Tools.SubAgentsOnly...)
	if w.agent, err = newAgent(ctx, d, cfg, w.voice, sess, w.tools, ls, c, in, w.ext.adverts...); err != nil {
		host.close()
		return nil, err
	}
	// The default agent, before any persona: /agent default goes back to it.
	w.defaultDef = w.agent.Definition(defaultAgentName)
	if w.name, err = applyAgent(changed, d, o, cfg, w.ext.defs, w.agent, w.tools, snapshot); err != nil {
		host.close()
		return nil, err
	}
	return w, nil
}

// extended is what the extensions add: their tools (in the full set),
// their blocks of the system prompt, and what the REPL lists of them.
type extended struct {
	defs    map[string]agent.Definition // the personas, read once per run
	adverts []agent.Advert
	skills  []tool.Skill
	mcp     *mcpclient.Servers // nil without [mcp.*]
}

// extensions adds to full the tools of the extensions the configuration
// has: the agent tool when there are personas, the skill tool when there
// are skills (their folders readable without asking).
func extensions(d deps, o *rootOptions, cfg config.Config, full *tool.Set) (extended, error) {
	var ext extended
	defs, err := definitions(d, o, cfg)
	if err != nil {
		return ext, err
	}
	ext.defs = defs
	if len(defs) > 0 {
		del := &agent.Delegate{Personas: defs, Tools: full}
		full.Add(del)
		ext.adverts = append(ext.adverts, del.Advert())
	}
	wd, err := d.workdir()
	if err != nil {
		return ext, err
	}
	skills, problems := tool.FindSkills(tool.SkillDir{Path: filepath.Join(wd, ".chat", "skills"), Project: wd},
		tool.SkillDir{Path: xdg.Config.Chat(d.getenv, "skills"), Trusted: true})
	for _, p := range problems {
		fmt.Fprintf(d.stderr, "skill skipped: %v\n", p)
	}
	if len(skills) > 0 {
		st := &tool.Skills{List: skills}
		full.Add(st)
		full.Policy.Grant(st.ReadGrants()...)
		ext.adverts = append(ext.adverts, agent.Advert{Tool: tool.SkillName, Text: st.Advertisement()})
		ext.skills = skills
	}
	if len(cfg.MCP) > 0 {
		ext.mcp = mcpclient.New(cfg.MCP, d.getenv, wd)
		full.Add(&mcpclient.Connector{Servers: ext.mcp})
		ext.adverts = append(ext.adverts, agent.Advert{Tool: mcpclient.ConnectName, Text: ext.mcp.Advertisement()})
	}
	// A persona that names a tool this chat does not have is the person's
	// to fix, now, not the model's to meet mid-turn. An MCP server's tools
	// (server__tool) exist once it connects.
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		for _, t := range defs[name].Tools {
			if _, ok := full.Lookup(t.Name); !ok && !strings.Contains(t.Name, "__") {
				_, err := defs[name].ResolveTools(full)
				return ext, fmt.Errorf("%w; fix [agents.%s] tools", err, name)
			}
		}
	}
	return ext, nil
}

// connectEager connects the servers configured eager = true and gives
// their tools to the main agent. One that fails says which and why
// through report; the session goes on without it.
func (w *wired) connectEager(ctx context.Context, report func(string)) {
	if w.ext.mcp == nil {
		return
	}
	for _, name := range w.ext.mcp.Eager() {
		tools, err := w.ext.mcp.Connect(ctx, name)
		if err != nil {
			if ctx.Err() == nil {
				report(fmt.Sprintf("%v (the session goes on without it)", err))
			}
			continue
		}
		for _, t := range tools {
			w.agent.Tools().Add(t)
		}
	}
}

// close ends the run: the session file, and every MCP server process.
func (w *wired) close() {
	if w.voice.hooks.Has("SessionEnd") {
		w.voice.hooks.Show(w.voice.hooks.Run(context.Background(), hook.Input{Event: "SessionEnd", Reason: "exit"}))
	}
	w.host.close()
	w.shell.Close()
	w.checkpoints.close()
	if w.ext.mcp != nil {
		_ = w.ext.mcp.Close()
	}
}

// windowProbe is when the server is asked its context window.
type windowProbe int

const (
	probeNever      windowProbe = iota // the table's or the catalog's window
	probeAtStart                       // in the background, for the status bar
	probeWhenNeeded                    // when a request first needs the window
)

// start saves the session from now on (its header carries the agent) and
// settles the context window, or says how (see findWindow).
func (w *wired) start(ctx context.Context, cfg config.Config, probe windowProbe) {
	w.host.begin(w.sess, definitionJSON(w.agent, w.name))
	w.findWindow = contextWindow(ctx, cfg, w.agent, probe != probeNever)
	if w.findWindow != nil && probe == probeAtStart {
		w.findWindow()
	}
	source := "startup"
	if w.sess.Len() > 1 {
		source = "resume"
	}
	w.sessionStart(ctx, source)
	w.host.cleared = func() { w.sessionStart(ctx, "clear") }
}

// sessionStart runs the SessionStart hooks; what they print goes with the
// next message.
func (w *wired) sessionStart(ctx context.Context, source string) {
	if !w.voice.hooks.Has("SessionStart") {
		return
	}
	out := w.voice.hooks.Run(ctx, hook.Input{Event: "SessionStart", Source: source})
	w.voice.hooks.Show(out)
	if out.Context != "" {
		w.agent.AddContext("<session-start-hook>\n" + out.Context + "\n</session-start-hook>")
	}
}

// switchAgent makes the main agent the named persona (defaultAgentName:
// the config's own), keeping the session.
func (w *wired) switchAgent(cfg config.Config, name string) error {
	if name == defaultAgentName {
		return w.agent.Apply(w.defaultDef, w.tools)
	}
	def, ok := w.ext.defs[name]
	if !ok {
		return fmt.Errorf("no agent named %q; /agent lists them", name)
	}
	if err := mayLead(cfg, def); err != nil {
		return err
	}
	return w.agent.Apply(def, w.tools)
}

// toolStates is each tool the agent has and whether it asks (/tools).
func (w *wired) toolStates() []tui.ToolState {
	var out []tui.ToolState
	for _, t := range w.agent.Tools().All() {
		state := w.tools.Policy.StateOf(t)
		if _, shell := t.(tool.RunShell); shell {
			state = w.shell.State(w.tools.Policy)
		}
		out = append(out, tui.ToolState{Name: t.Name(), State: state, Description: t.Description()})
	}
	return out
}
