package config

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/chatrepl/chat/internal/hostpat"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/internal/xdg"
)

// OpenAIBaseURL is used when only an API key is configured.
const OpenAIBaseURL = "https://api.openai.com/v1"

// ErrNotConfigured means no endpoint is known; its message says how to set one.
var ErrNotConfigured = errors.New(`no model endpoint is configured. Set one of:
  OPENAI_API_KEY=sk-…                                  (OpenAI)
  OPENAI_BASE_URL=https://openrouter.ai/api/v1 OPENAI_API_KEY=…   (OpenRouter)
  OPENAI_BASE_URL=http://localhost:11434/v1            (Ollama)
  OPENAI_BASE_URL=http://localhost:8080/v1             (llama.cpp llama-server)
or put base_url (and api_key_cmd) in the config file: chat config init`)

// Config is everything a run needs to know.
type Config struct {
	BaseURL   string `toml:"base_url"`
	APIKey    string `toml:"api_key"` // better: the environment or api_key_cmd
	APIKeyCmd string `toml:"api_key_cmd"`
	Model     string `toml:"model"`
	// SmallModel, when set, does the small jobs: session titles,
	// compaction summaries, the answer written when the step budget runs
	// out (the main model does them otherwise).
	SmallModel  string   `toml:"small_model"`
	MaxSteps    *int     `toml:"max_steps"` // 0 (or -1): unlimited; see internal/steps
	System      string   `toml:"system"`
	NoStream    bool     `toml:"no_stream"`
	Temperature *float32 `toml:"temperature"`

	// Agents are the named agent definitions (personas) of the file.
	Agents map[string]AgentConfig `toml:"agents"`
	// Tools says which tools run without asking, and which never run.
	Tools ToolsConfig `toml:"tools"`
	// MCP are the MCP servers the model may connect to, by name.
	MCP map[string]MCPConfig `toml:"mcp"`
	// LSP are the language servers, by name: the built-in ones (gopls,
	// typescript, pyright, rust-analyzer, clangd) changed or turned off,
	// and others.
	LSP map[string]LSPConfig `toml:"lsp"`
	// Notify says when the REPL tells the person it is their turn.
	Notify NotifyConfig `toml:"notify"`
	// TUI is the REPL's own settings.
	TUI TUIConfig `toml:"tui"`
	// Worktree says where chat --worktree NAME makes its worktrees.
	Worktree WorktreeConfig `toml:"worktree"`
	// Sandbox confines the commands the agent runs.
	Sandbox SandboxConfig `toml:"sandbox"`
	// Checkpoints bounds what is kept to rewind the agent's changes.
	Checkpoints CheckpointsConfig `toml:"checkpoints"`
	// ProjectInstructions: read AGENTS.md (else CLAUDE.md) files into the
	// system prompt; nil is yes (--no-project-instructions: no).
	ProjectInstructions *bool `toml:"project_instructions"`
	// Hooks are commands run at points of a session, by event name.
	Hooks Hooks `toml:"hooks"`
	// Budget bounds what one turn may spend, its sub-agents included.
	Budget BudgetConfig `toml:"budget"`
	// Models says what chat should know of a model, by its name as the
	// server calls it ([models."qwen3:8b"]).
	Models map[string]ModelConfig `toml:"models"`
	// Yes approves every tool call (--yes).
	Yes bool `toml:"-"`
	// ContextWindow overrides the model's context size (--context-window).
	ContextWindow int `toml:"context_window"`
	// CompactAt is how full the context window may get before the earlier
	// turns are summarized: a share (0.8) or a percentage (80); 0 turns it
	// off (a server's overflow error still compacts); nil is the default.
	CompactAt *float64 `toml:"compact_at"`
	// HeaderTimeout bounds the wait for a server to begin answering, and
	// IdleTimeout the silence within a streamed answer ("90s", "10m");
	// zero means the defaults (5m each).
	HeaderTimeout time.Duration `toml:"header_timeout"`
	IdleTimeout   time.Duration `toml:"idle_timeout"`

	// Where each value came from, for `chat config show`.
	Sources map[string]string `toml:"-"`
	Path    string            `toml:"-"` // the file read, if any
}

// ModelConfig is a model's own settings:
//
//	[models."qwen3-coder"]
//	rescue_tool_calls = false   # leave tool calls written as text as text
//	input_per_mtok = 0.30       # USD per million tokens, over the catalog's
//	output_per_mtok = 1.20
//	cached_input_per_mtok = 0.03
//	context_window = 32768
type ModelConfig struct {
	RescueToolCalls *bool `toml:"rescue_tool_calls"`
	// Catalog names the catalog provider whose price applies, whatever
	// the endpoint (a local proxy in front of a hosted model).
	Catalog            string   `toml:"catalog"`
	InputPerMTok       *float64 `toml:"input_per_mtok"`
	OutputPerMTok      *float64 `toml:"output_per_mtok"`
	CachedInputPerMTok *float64 `toml:"cached_input_per_mtok"`
	ContextWindow      int      `toml:"context_window"`
}

// BudgetConfig is [budget]: per turn, the money (US dollars) and the
// tokens a turn may spend before its answer is synthesized; 0 is no bound.
type BudgetConfig struct {
	MaxCost   float64 `toml:"max_cost"`
	MaxTokens int     `toml:"max_tokens"`
}

// Rescues reports whether tool calls model writes as text are run (the
// default) or left as text.
func (c Config) Rescues(model string) bool {
	m, ok := c.Models[model]
	return !ok || m.RescueToolCalls == nil || *m.RescueToolCalls
}

// AgentConfig is a persona in the config file:
//
//	[agents.reviewer]
//	description = "reviews Go code for bugs"   # how the main agent sees it
//	model = "gpt-4o"
//	instructions = "You review Go code for bugs."
//	temperature = 0.1
//	max_steps = 8                 # -1 = unlimited
//	tools = ["read_file", "list_files"]
//	structured_output = "review.schema.json"   # relative to the config file
type AgentConfig struct {
	Description      string   `toml:"description"`
	Model            string   `toml:"model"`
	Instructions     string   `toml:"instructions"`
	Temperature      *float32 `toml:"temperature"`
	TopP             *float32 `toml:"top_p"`
	MaxTokens        int      `toml:"max_tokens"`
	MaxSteps         *int     `toml:"max_steps"`
	Tools            []string `toml:"tools"`
	StructuredOutput string   `toml:"structured_output"`
	// Isolation "worktree": each task runs in a git worktree of its own,
	// on a branch the result names ("" shares the working tree).
	Isolation string `toml:"isolation"`
}

// ToolsConfig is the [tools] table:
//
//	[tools]
//	allow = ["write_file"]              # never ask for these
//	deny = ["fetch_url"]                # never run these
//	allow_shell = ["go test", "git status", "ls"]   # run_shell commands by prefix
//	deny_shell = ["rm", "git push"]
//	sub_agents_only = ["fetch_url"]     # offered to personas that list them, never to the main agent
type ToolsConfig struct {
	Allow      []string `toml:"allow"`
	Deny       []string `toml:"deny"`
	AllowShell []string `toml:"allow_shell"`
	DenyShell  []string `toml:"deny_shell"`
	MaxOutput  int      `toml:"max_output"` // bytes a tool returns before truncation
	// SubAgentsOnly are tools the main agent is not offered: only a
	// sub-agent whose persona lists them gets them (keep what reads the
	// web away from what holds your files, say).
	SubAgentsOnly []string `toml:"sub_agents_only"`
}

// SandboxConfig is the [sandbox] table:
//
//	[sandbox]
//	mode = "workspace-write"        # or "read-only", or "off" (the policy and prompts decide)
//	writable = ["~/.cache/go-build"]  # more roots commands may write under
//	env_keep = ["GOPRIVATE_TOKEN"]  # secret-looking variables children may still see
//	hidden = ["~/work/secrets"]     # more paths that look empty inside the sandbox
//	bwrap = "/usr/bin/bwrap"        # bubblewrap to use (default: bwrap on PATH)
//	max_memory_mb = 4096            # the box's commands together, where it gets a cgroup (default: half the RAM)
//	allow_domains = ["proxy.golang.org", "*.npmjs.org"]  # hosts boxed commands may reach (through chat's proxy)
//	deny_domains = ["*.example.net"]  # never, whatever allows them
//	home_read = ["~/.config/nvim"]  # more of HOME the box may read (it sees only toolchains and caches)
type SandboxConfig struct {
	Mode        string   `toml:"mode"`
	Bwrap       string   `toml:"bwrap"`
	MaxMemoryMB uint64   `toml:"max_memory_mb"`
	Writable    []string `toml:"writable"`
	EnvKeep     []string `toml:"env_keep"`
	Hidden      []string `toml:"hidden"`
	// AllowDomains and DenyDomains are host patterns: a name, *.domain,
	// or an IP address (a non-public one only this way).
	AllowDomains []string `toml:"allow_domains"`
	DenyDomains  []string `toml:"deny_domains"`
	HomeRead     []string `toml:"home_read"`
}

// CheckpointsConfig is the [checkpoints] table:
//
//	[checkpoints]
//	off = false          # true: take none (/rewind can then only rewind the conversation)
//	max_size_mb = 1024   # per session; past it the oldest checkpoints are removed
//	max_file_mb = 8      # bigger files are noticed, not stored
type CheckpointsConfig struct {
	Off       bool `toml:"off"`
	MaxSizeMB int  `toml:"max_size_mb"`
	MaxFileMB int  `toml:"max_file_mb"`
}

// SandboxModes are the values of [sandbox] mode and --sandbox.
var SandboxModes = []string{"workspace-write", "read-only", "off"}

// MCPConfig is an MCP server in the config file, run as a command (stdio)
// or reached at a URL (streamable HTTP):
//
//	[mcp.github]
//	command = "github-mcp-server"
//	args = ["stdio"]
//	env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }   # ${VAR} is taken from the environment
//	description = "GitHub issues and pull requests"
//	allow = ["list_issues"]                       # these run without asking
//
//	[mcp.docs]
//	url = "https://example.com/mcp"
//	headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
//	eager = true                                  # connect at start, not when the model asks
type MCPConfig struct {
	Command     string            `toml:"command,omitempty"`
	Args        []string          `toml:"args,omitempty"`
	Env         map[string]string `toml:"env,omitempty"`
	URL         string            `toml:"url,omitempty"`
	Headers     map[string]string `toml:"headers,omitempty"`
	Description string            `toml:"description,omitempty"`
	Eager       bool              `toml:"eager,omitempty"`
	Allow       []string          `toml:"allow,omitempty"`
	// Timeout bounds one tool call ("2m"); zero is a minute.
	Timeout time.Duration `toml:"timeout,omitzero"`
	// ReadResources lets @NAME:URI mentions be read without asking.
	ReadResources bool `toml:"read_resources,omitempty"`
	// OAuth configures a registered client for an HTTP server's OAuth
	// (without it, chat registers itself when the server allows).
	OAuth *MCPOAuth `toml:"oauth,omitempty"`
}

// WorktreeConfig is [worktree]: dir, the folder that holds chat's
// worktrees, one per name (default: beside the repository, in
// <repository>.worktrees; a relative path is taken from the repository's
// parent folder, ~ is the home folder).
type WorktreeConfig struct {
	Dir string `toml:"dir,omitempty"`
}

// TUIConfig is [tui]: status_line, a command whose first line stands in
// the status bar (given the session's state as JSON on stdin).
type TUIConfig struct {
	StatusLine string `toml:"status_line,omitempty"`
}

// NotifyConfig is [notify]: when (any of "turn", "approval"; default
// both), a turn's least length to be told of (min_turn, default 10s), and
// how ("auto", "osc9", "osc777", "osc99", "bel" or "off").
type NotifyConfig struct {
	When    []string      `toml:"when,omitempty"`
	MinTurn time.Duration `toml:"min_turn,omitzero"`
	Method  string        `toml:"method,omitempty"`
}

// Moments are When, or both moments when it is not set.
func (n NotifyConfig) Moments() []string {
	if n.When == nil {
		return []string{"turn", "approval"}
	}
	return n.When
}

// Least is MinTurn, or 10 s when it is not set.
func (n NotifyConfig) Least() time.Duration {
	if n.MinTurn == 0 {
		return 10 * time.Second
	}
	return n.MinTurn
}

// LSPConfig is one language server: the command (its first word looked
// up on PATH), the file extensions it takes, the files that mark its
// project's root, whether it is used, and how long an edit waits for
// its diagnostics ("2s" when not set).
type LSPConfig struct {
	Command     []string      `toml:"command,omitempty"`
	Extensions  []string      `toml:"extensions,omitempty"`
	RootMarkers []string      `toml:"root_markers,omitempty"`
	Enabled     *bool         `toml:"enabled,omitempty"`
	Wait        time.Duration `toml:"wait,omitzero"`
}

// MCPOAuth is a client registered with a server's authorization server.
// The secret, if any, is read from the environment variable it names.
type MCPOAuth struct {
	ClientID     string   `toml:"client_id,omitempty"`
	ClientSecret string   `toml:"client_secret_env,omitempty"`
	Scopes       []string `toml:"scopes,omitempty"`
	// CallbackPort is the loopback port the browser returns to (0: any
	// free one; a registered client usually names one).
	CallbackPort int `toml:"callback_port,omitempty"`
}

// Transport says how the server is reached: "stdio: COMMAND ARGS" or
// "http: URL", with the names of its environment and headers (values may
// be secrets: only names are shown).
func (m MCPConfig) Transport() string {
	t := "stdio: " + strings.Join(append([]string{m.Command}, m.Args...), " ")
	if m.URL != "" {
		t = "http: " + m.URL
	}
	var keys []string
	for _, kv := range []map[string]string{m.Env, m.Headers} {
		for k := range kv {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		t += " (" + strings.Join(keys, ", ") + ")"
	}
	return t
}

// ParsePairs reads KEY=VALUE settings (an MCP server's --env and
// --header); flag names them in the error.
func ParsePairs(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s takes KEY=VALUE, not %q", flag, kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

// CheckMCP says what is wrong with a server's entry, nil when nothing.
func CheckMCP(name string, m MCPConfig) error {
	if name == "" || len(name) > 24 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || strings.Contains(name, "__") {
		return fmt.Errorf("mcp server name %q: use up to 24 letters, digits, '-' or '_' (no \"__\")", name)
	}
	if (m.Command == "") == (m.URL == "") {
		return fmt.Errorf("mcp.%s: give either command (a program speaking MCP on stdio) or url (streamable HTTP)", name)
	}
	return nil
}

// Flags are the command-line overrides; nil or "" means not given.
type Flags struct {
	BaseURL, Model, System *string
	SmallModel             *string
	MaxSteps               *int
	NoStream               *bool
	Yes                    *bool
	ContextWindow          *int
	Sandbox                *string
	NoProjectInstructions  *bool
	MaxCost                *float64
	MaxTurnTokens          *int
	AllowDomains           []string // --allow-domain, added to the config's
}

// Steps is the effective step budget. Load has checked max_steps.
func (c Config) Steps() steps.Budget {
	if c.MaxSteps == nil {
		return steps.Default
	}
	b, _ := steps.Parse(*c.MaxSteps)
	return b
}

// UsesProjectInstructions says whether AGENTS.md files are read.
func (c Config) UsesProjectInstructions() bool {
	return c.ProjectInstructions == nil || *c.ProjectInstructions
}

// CompactShare is compact_at as the agent takes it: a share of the window,
// 0 for the default, negative for never.
func (c Config) CompactShare() *float64 {
	if c.CompactAt == nil {
		return nil
	}
	share := *c.CompactAt
	if share > 1 {
		share /= 100
	}
	return &share
}

// DefaultPath is $XDG_CONFIG_HOME/chat/config.toml (~/.config/… without it).
func DefaultPath(getenv func(string) string) string { return xdg.Config.Chat(getenv, "config.toml") }

// Load reads the file at path (a missing file is fine), then applies the
// environment and the flags. It does not decide the endpoint; see Resolve.
func Load(path string, getenv func(string) string, f Flags) (Config, error) {
	c := Config{Sources: map[string]string{}}
	if path != "" {
		md, err := toml.DecodeFile(path, &c)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return c, fmt.Errorf("config file %s: %w", path, err)
		default:
			c.Path = path
			for _, k := range md.Keys() {
				c.Sources[k.String()] = "file"
			}
			if und := md.Undecoded(); len(und) > 0 {
				return c, fmt.Errorf("config file %s: unknown key %q", path, und[0].String())
			}
		}
	}
	set := func(key string, dst *string, v, source string) {
		if v != "" {
			*dst = v
			c.Sources[key] = source
		}
	}
	set("base_url", &c.BaseURL, getenv("OPENAI_BASE_URL"), "env OPENAI_BASE_URL")
	set("api_key", &c.APIKey, getenv("OPENAI_API_KEY"), "env OPENAI_API_KEY")
	set("model", &c.Model, getenv("CHAT_MODEL"), "env CHAT_MODEL")
	if f.BaseURL != nil {
		set("base_url", &c.BaseURL, *f.BaseURL, "flag --base-url")
	}
	if f.Model != nil {
		set("model", &c.Model, *f.Model, "flag --model")
	}
	set("small_model", &c.SmallModel, getenv("CHAT_SMALL_MODEL"), "env CHAT_SMALL_MODEL")
	if f.SmallModel != nil {
		set("small_model", &c.SmallModel, *f.SmallModel, "flag --small-model")
	}
	if f.System != nil {
		set("system", &c.System, *f.System, "flag --system")
	}
	if f.MaxSteps != nil {
		c.MaxSteps = f.MaxSteps
		c.Sources["max_steps"] = "flag --max-steps"
	}
	switch c.Notify.Method {
	case "", "auto", "osc9", "osc777", "osc99", "bel", "off":
	default:
		return c, fmt.Errorf("notify.method %q: one of auto, osc9, osc777, osc99, bel, off", c.Notify.Method)
	}
	for _, w := range c.Notify.When {
		if w != "turn" && w != "approval" {
			return c, fmt.Errorf("notify.when %q: turn or approval", w)
		}
	}
	if c.MaxSteps != nil {
		if _, err := steps.Parse(*c.MaxSteps); err != nil {
			return c, fmt.Errorf("%s: %w", c.Sources["max_steps"], err)
		}
	}
	for name, m := range c.MCP {
		if err := CheckMCP(name, m); err != nil {
			return c, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	if c.CompactAt != nil && (*c.CompactAt < 0 || *c.CompactAt > 100) {
		return c, fmt.Errorf("config file %s: compact_at is a share of the context window (0.8) or a percentage (80), not %v", path, *c.CompactAt)
	}
	if f.Yes != nil && *f.Yes {
		c.Yes = true
		c.Sources["yes"] = "flag --yes"
	}
	if f.Sandbox != nil {
		c.Sandbox.Mode = *f.Sandbox
		c.Sources["sandbox.mode"] = "flag --sandbox"
	}
	if len(f.AllowDomains) > 0 {
		c.Sandbox.AllowDomains = append(c.Sandbox.AllowDomains, f.AllowDomains...)
		c.Sources["sandbox.allow_domains"] = "flag --allow-domain and the config"
	}
	for _, l := range []struct {
		key  string
		pats []string
	}{{"sandbox.allow_domains", c.Sandbox.AllowDomains}, {"sandbox.deny_domains", c.Sandbox.DenyDomains}} {
		for _, p := range l.pats {
			if why := hostpat.Check(p); why != "" {
				return c, fmt.Errorf("%s %q (%s): %s", l.key, p, c.sourceOf(l.key), why)
			}
		}
	}
	if m := c.Sandbox.Mode; m != "" && !slices.Contains(SandboxModes, m) {
		return c, fmt.Errorf("sandbox mode %q (%s): use %s", m, c.sourceOf("sandbox.mode"), strings.Join(SandboxModes, ", "))
	}
	if f.ContextWindow != nil {
		c.ContextWindow = *f.ContextWindow
		c.Sources["context_window"] = "flag --context-window"
	}
	if f.MaxCost != nil {
		c.Budget.MaxCost = *f.MaxCost
		c.Sources["budget.max_cost"] = "flag --max-cost"
	}
	if f.MaxTurnTokens != nil {
		c.Budget.MaxTokens = *f.MaxTurnTokens
		c.Sources["budget.max_tokens"] = "flag --max-tokens"
	}
	if c.Budget.MaxCost < 0 || c.Budget.MaxTokens < 0 {
		return c, errors.New("a budget (max_cost, max_tokens) cannot be negative; 0 means none")
	}
	if f.NoProjectInstructions != nil && *f.NoProjectInstructions {
		no := false
		c.ProjectInstructions = &no
		c.Sources["project_instructions"] = "flag --no-project-instructions"
	}
	if err := c.Hooks.Check(); err != nil {
		return c, fmt.Errorf("config file %s: %w", path, err)
	}
	if f.NoStream != nil && *f.NoStream {
		c.NoStream = true
		c.Sources["no_stream"] = "flag --no-stream"
	}
	return c, nil
}

func (c Config) sourceOf(key string) string {
	if s := c.Sources[key]; s != "" {
		return s
	}
	return "config"
}

// Resolve fills the API key from api_key_cmd when needed and decides the
// endpoint: the configured base URL, else OpenAI when a key is set, else
// ErrNotConfigured.
func (c *Config) Resolve(ctx context.Context) error {
	if c.APIKey == "" && c.APIKeyCmd != "" {
		key, err := runKeyCmd(ctx, c.APIKeyCmd)
		if err != nil {
			return err
		}
		c.APIKey = key
		c.Sources["api_key"] = "api_key_cmd"
	}
	return c.ResolveEndpoint()
}

// ResolveEndpoint decides the endpoint as Resolve does, without running
// api_key_cmd (a key command counts as a key): for showing settings.
func (c *Config) ResolveEndpoint() error {
	if c.BaseURL == "" {
		if c.APIKey == "" && c.APIKeyCmd == "" {
			return ErrNotConfigured
		}
		c.BaseURL = OpenAIBaseURL
		c.Sources["base_url"] = "default (an API key is set)"
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the base URL is not an http(s) URL, e.g. http://localhost:8080/v1")
	}
	if c.Model == "" && strings.HasPrefix(c.BaseURL, OpenAIBaseURL) {
		c.Model = "gpt-4o-mini"
		c.Sources["model"] = "default"
	}
	return nil
}

func runKeyCmd(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", command).Output()
	if err != nil {
		// The command's output may be the key: never quote it.
		return "", fmt.Errorf("api_key_cmd failed: %v", err)
	}
	key := strings.TrimSpace(string(out))
	if key == "" {
		return "", errors.New("api_key_cmd printed nothing")
	}
	return key, nil
}
