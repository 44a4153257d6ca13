package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/llm/pricing"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/mcpclient"
	"github.com/chatrepl/chat/tool/sandbox"
)

// DefaultSystem is the system prompt when none is configured.
const DefaultSystem = `You are a helpful assistant working in a terminal, in the user's working directory.
When a question is about files or code here, use the tools to look before answering; do not guess.
Answer concisely, in Markdown.`

// Client is the one way chat builds a model client: every setting of cfg
// that concerns the connection, for model (empty: cfg's).
func Client(cfg config.Config, model string) *llm.Client {
	if model == "" {
		model = cfg.Model
	}
	return llm.New(llm.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: model,
		HeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout})
}

// ResolveEndpoint settles where the model is: the configuration, else a
// local server found running (Ollama, LM Studio, llama.cpp).
func ResolveEndpoint(ctx context.Context, env Env, cfg *config.Config) error {
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
	fmt.Fprintf(env.Stderr, "using %s at %s, found running (set OPENAI_BASE_URL or base_url to choose)\n", found.Name, found.BaseURL)
	return cfg.Resolve(ctx)
}

// newAgent builds the run's agent from its resolved config.
func (r *Run) newAgent(ctx context.Context, s *session.Session) (*agent.Agent, error) {
	cfg, spec := r.cfg, r.spec
	llmc := Client(cfg, "")
	if cfg.Model == "" {
		models, err := llmc.Models(ctx)
		if err != nil {
			return nil, fmt.Errorf("no model is set (--model or CHAT_MODEL), and listing the server's models failed: %w", err)
		}
		if len(models) == 0 {
			return nil, fmt.Errorf("no model is set (--model or CHAT_MODEL) and %s lists none", cfg.BaseURL)
		}
		cfg.Model = models[0]
		r.cfg.Model = cfg.Model
		if len(models) > 1 {
			fmt.Fprintf(spec.Env.Stderr, "using model %s, the first of %d the server offers; choose with --model\n", cfg.Model, len(models))
		}
		llmc = Client(cfg, "")
	}
	return agent.New(agent.Options{
		Client:      llmc,
		Session:     s,
		System:      cmp.Or(cfg.System, DefaultSystem),
		Project:     r.voice.instructions.Text,
		Hooks:       r.voice.hooks,
		Adverts:     r.ext.adverts,
		Tools:       r.tools,
		Listeners:   spec.Listeners,
		StepLimit:   control.NewStepLimit(cfg.Steps().Max()),
		Cancellable: spec.Cancellable,
		Interloper:  spec.Interloper,
		NoStream:    cfg.NoStream,
		Temperature: cfg.Temperature,
		CompactAt:   cfg.CompactShare(),
		NoRescue:    func(model string) bool { return !cfg.Rescues(model) },
		Price:       PriceOf(cfg),
		Spend:       control.NewSpend(cfg.Budget.MaxTokens, cfg.Budget.MaxCost),
		Ending:      r.ending(),
		SmallModel:  cfg.SmallModel,
	}), nil
}

// BuiltinTools is the built-in tools in env's working directory under
// the config's approval policy, with no one to ask (what a definition's
// tool names are checked against).
func BuiltinTools(env Env, cfg config.Config) (*tool.Set, error) {
	builtins, shell, err := builtinTools(env, cfg, nil)
	if err != nil {
		return nil, err
	}
	shell.Close()
	return tool.Rules{Policy: policyOf(cfg)}.Set(builtins...), nil
}

// builtinTools is the built-in tools in env's working directory and the
// confinement their commands run in (jobs: the run's background commands).
func builtinTools(env Env, cfg config.Config, jobs *tool.Jobs) ([]tool.Tool, *tool.Confinement, error) {
	shell, err := confinement(env, cfg)
	if err != nil {
		return nil, nil, err
	}
	return tool.Builtins(tool.Workspace{Root: env.Workdir, MaxOutput: cfg.Tools.MaxOutput, Shell: shell, Jobs: jobs}), shell, nil
}

// policyOf is the config's approval policy (and --yes).
func policyOf(cfg config.Config) *tool.Policy {
	return &tool.Policy{AllowAll: cfg.Yes, AllowTools: cfg.Tools.Allow, DenyTools: cfg.Tools.Deny,
		AllowShell: cfg.Tools.AllowShell, DenyShell: cfg.Tools.DenyShell}
}

// confinement is where run_shell's commands run, from [sandbox] and
// --sandbox; the children's environment leaves out the API key and every
// secret-looking variable.
func confinement(env Env, cfg config.Config) (*tool.Confinement, error) {
	mode, err := sandbox.ParseMode(cfg.Sandbox.Mode)
	if err != nil {
		return nil, err
	}
	wd := env.Workdir
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	home := env.Getenv("HOME")
	hidden := append(sandbox.DefaultHidden(home), expandPaths(append(cfg.Sandbox.Hidden,
		xdg.Config.Chat(env.Getenv), xdg.Data.Chat(env.Getenv), xdg.State.Chat(env.Getenv)), home)...)
	slices.Sort(hidden)
	spec := sandbox.Spec{Mode: mode, Workdir: wd, Writable: expandPaths(cfg.Sandbox.Writable, home), Hidden: slices.Compact(hidden),
		Bwrap: sandbox.FindBwrap(cfg.Sandbox.Bwrap), MaxMemory: cfg.Sandbox.MaxMemoryMB << 20}
	if real, err := filepath.EvalSymlinks(home); err == nil && filepath.IsAbs(home) {
		self, _ := os.Executable()
		spec.Home = real
		spec.HomeVisible = sandbox.HomeVisible(real, env.Getenv("PATH"), self, expandPaths(cfg.Sandbox.HomeRead, home))
	}
	spec.GoModCache = goModCache(env.Getenv, home)
	c := tool.NewConfinement(spec, ChildEnv(env, cfg))
	c.Net = &tool.Network{Allow: cfg.Sandbox.AllowDomains, Deny: cfg.Sandbox.DenyDomains,
		Project: &tool.ProjectHosts{Path: xdg.State.Chat(env.Getenv, "network-allowed.json"), Root: wd},
		Lookup:  testResolver(env.Getenv("CHAT_PROXY_HOSTS"))}
	return c, nil
}

// testResolver answers names from a table ("name=ip,name=ip"), for tests
// that need a name to resolve to a local address; nil (the system's
// resolver) without one. What it answers is checked as any answer is.
func testResolver(table string) func(ctx context.Context, host string) ([]net.IPAddr, error) {
	if table == "" {
		return nil
	}
	names := map[string]net.IP{}
	for _, kv := range strings.Split(table, ",") {
		name, ip, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if parsed := net.ParseIP(ip); parsed != nil {
			names[strings.ToLower(name)] = parsed
		}
	}
	return func(ctx context.Context, host string) ([]net.IPAddr, error) {
		if ip, ok := names[host]; ok {
			return []net.IPAddr{{IP: ip}}, nil
		}
		return net.DefaultResolver.LookupIPAddr(ctx, host)
	}
}

// goModCache is the person's Go module cache, where it exists ("" else).
func goModCache(getenv func(string) string, home string) string {
	dir := getenv("GOMODCACHE")
	if dir == "" {
		gopath := filepath.SplitList(getenv("GOPATH"))
		switch {
		case len(gopath) > 0 && gopath[0] != "":
			dir = filepath.Join(gopath[0], "pkg", "mod")
		case home != "":
			dir = filepath.Join(home, "go", "pkg", "mod")
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "cache", "download")); dir == "" || err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// ChildEnv is the environment of every child chat starts for the person
// (commands, hooks): the secrets left out.
func ChildEnv(env Env, cfg config.Config) []string {
	return tool.ChildEnv(env.Environ(), cfg.Sandbox.EnvKeep, []string{cfg.APIKey})
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
				n, _ := Client(cfg, a.Model()).ContextWindow(ctx, a.Model())
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

// PriceOf prices a model's usage: the config's prices, the catalog's, or
// nothing (an unknown model shows tokens only).
func PriceOf(cfg config.Config) func(model string, u session.Usage) (float64, bool) {
	pricing.Warm(cfg.BaseURL)
	return func(model string, u session.Usage) (float64, bool) {
		p, ok := ModelPrice(cfg, model)
		if !ok {
			return 0, false
		}
		return p.Cost(u), true
	}
}

// ModelPrice is what model costs where cfg points.
func ModelPrice(cfg config.Config, model string) (pricing.Price, bool) {
	m := cfg.Models[model]
	return pricing.Lookup(model, cfg.BaseURL, pricing.Override{Input: m.InputPerMTok, Output: m.OutputPerMTok,
		CachedInput: m.CachedInputPerMTok, Catalog: m.Catalog})
}

// PriceSource says where a model's price comes from, for /cost.
func PriceSource(cfg config.Config, model string) string {
	p, ok := ModelPrice(cfg, model)
	if !ok {
		return "none known for " + model + " (the catalog does not list it; [models.NAME] input_per_mtok and output_per_mtok set one)"
	}
	return fmt.Sprintf("%s: $%g input, $%g cached input, $%g output per million tokens", p.Source, p.Input, p.CachedInput, p.Output)
}

// extended is what the extensions add: their tools (in the full set),
// their blocks of the system prompt, and what the REPL lists of them.
type extended struct {
	defs    map[string]agent.Definition // the personas, read once per run
	adverts []agent.Advert
	skills  []tool.Skill
	mcp     *mcpclient.Servers // nil without [mcp.*]
	mcpView *MCP               // the same, for the front ends
	// delegate is the agent tool (nil without personas).
	delegate *agent.Delegate
}

// extensions adds to full the tools of the extensions the configuration
// has: the agent tool when there are personas, the skill tool when there
// are skills (their folders readable without asking).
func extensions(spec Spec, full *tool.Set) (extended, error) {
	// The task list is offered in every mode: the prompt says when to keep one.
	ext := extended{adverts: []agent.Advert{{Tool: tool.PlanName, Text: agent.PlanAdvert}}}
	env, cfg := spec.Env, spec.Config
	defs, err := Definitions(cfg, spec.AgentsDir)
	if err != nil {
		return ext, err
	}
	ext.defs = defs
	if len(defs) > 0 {
		del := &agent.Delegate{Personas: defs, Tools: full}
		ext.delegate = del
		full.Add(del)
		ext.adverts = append(ext.adverts, del.Advert())
	}
	skills, problems := tool.FindSkills(tool.SkillDir{Path: filepath.Join(env.Workdir, ".chat", "skills"), Project: env.Workdir},
		tool.SkillDir{Path: xdg.Config.Chat(env.Getenv, "skills"), Trusted: true})
	for _, p := range problems {
		fmt.Fprintf(env.Stderr, "skill skipped: %v\n", p)
	}
	if len(skills) > 0 {
		st := &tool.Skills{List: skills}
		full.Add(st)
		full.Policy().Grant(st.ReadGrants()...)
		ext.adverts = append(ext.adverts, agent.Advert{Tool: tool.SkillName, Text: st.Advertisement()})
		ext.skills = skills
	}
	if len(cfg.MCP) > 0 {
		ext.mcp = newServers(cfg, env)
		ext.mcp.SetElicitor(spec.Elicitor)
		ext.mcpView = &MCP{ext.mcp}
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
