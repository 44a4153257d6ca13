package config

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Show writes the effective configuration as TOML with where each value
// came from. The API key is never printed, only whether it is set.
func (c Config) Show(w io.Writer) {
	line := func(key, value string) {
		src := c.Sources[key]
		if src == "" {
			src = "default"
		}
		fmt.Fprintf(w, "%-14s = %-40s # %s\n", key, value, src)
	}
	q := strconv.Quote
	if c.Path != "" {
		fmt.Fprintf(w, "# file: %s\n", c.Path)
	} else {
		fmt.Fprintln(w, "# file: none")
	}
	line("base_url", q(c.BaseURL))
	line("model", q(c.Model))
	key := `"(not set)"`
	if c.APIKey != "" {
		key = `"(set, hidden)"`
	}
	line("api_key", key)
	if c.APIKeyCmd != "" {
		line("api_key_cmd", `"(set, hidden)"`)
	}
	budget := strconv.Itoa(c.Steps().Max())
	if c.Steps() == 0 {
		budget = "0 # unlimited"
	}
	line("max_steps", budget)
	line("system", q(c.System))
	line("no_stream", strconv.FormatBool(c.NoStream))
	if c.Temperature != nil {
		line("temperature", strconv.FormatFloat(float64(*c.Temperature), 'g', -1, 32))
	}
	line("context_window", strconv.Itoa(c.ContextWindow)) // 0: asked of the server, or known for the model
	compact := "0.8"
	if c.CompactAt != nil {
		compact = strconv.FormatFloat(*c.CompactAt, 'g', -1, 64)
	}
	line("compact_at", compact)
	mode := c.Sandbox.Mode
	if mode == "" {
		mode = "workspace-write"
	}
	line("sandbox.mode", q(mode))
	if len(c.Sandbox.Writable) > 0 {
		line("sandbox.writable", q(strings.Join(c.Sandbox.Writable, ", ")))
	}
	if len(c.Sandbox.EnvKeep) > 0 {
		line("sandbox.env_keep", q(strings.Join(c.Sandbox.EnvKeep, ", ")))
	}
	line("checkpoints.off", strconv.FormatBool(c.Checkpoints.Off))
	line("header_timeout", q(orDefault(c.HeaderTimeout)))
	line("idle_timeout", q(orDefault(c.IdleTimeout)))
	list := func(key string, v []string) {
		if len(v) > 0 {
			line(key, q(strings.Join(v, ", ")))
		}
	}
	list("tools.allow", c.Tools.Allow)
	list("tools.deny", c.Tools.Deny)
	list("tools.allow_shell", c.Tools.AllowShell)
	list("tools.deny_shell", c.Tools.DenyShell)
	list("tools.sub_agents_only", c.Tools.SubAgentsOnly)
	if len(c.Agents) > 0 {
		list("agents", slices.Sorted(maps.Keys(c.Agents)))
	}
	if len(c.MCP) > 0 {
		// Their settings stay out: env and headers may hold secrets.
		list("mcp", slices.Sorted(maps.Keys(c.MCP)))
	}
	if len(c.LSP) > 0 {
		list("lsp", slices.Sorted(maps.Keys(c.LSP)))
	}
}

// orDefault shows a timeout, or what zero means.
func orDefault(d time.Duration) string {
	if d == 0 {
		return "5m (default)"
	}
	return d.String()
}

// Template is what `chat config init` writes.
const Template = `# chat configuration. Precedence: flags > environment > this file > defaults.
# Keep the API key out of this file: use OPENAI_API_KEY or api_key_cmd.

# base_url = "https://api.openai.com/v1"     # OpenAI
# base_url = "https://openrouter.ai/api/v1"  # OpenRouter
# base_url = "http://localhost:11434/v1"     # Ollama
# base_url = "http://localhost:8080/v1"      # llama.cpp llama-server
# api_key_cmd = "pass show openai"          # prints the key on stdout
# model = "gpt-4o-mini"
# max_steps = 16                             # tool calls per turn; 0 = unlimited
# system = "You are a concise assistant."
# temperature = 0.2
# header_timeout = "5m"                      # wait for a server to begin answering
# idle_timeout = "5m"                        # silence allowed inside a streamed answer
# context_window = 4096                      # the model's window, when the server does not say
# compact_at = 0.8                           # summarize earlier turns past 80% of the window; 0 = only on overflow
# project_instructions = true                # read AGENTS.md (else CLAUDE.md) files into the system prompt

# [sandbox]                                  # where run_shell's commands run (see the README)
# mode = "workspace-write"                   # or "read-only", or "off" (the policy and prompts decide)
# writable = ["~/.cache/go-build"]           # more roots commands may write under
# env_keep = ["NPM_TOKEN"]                   # secret-looking variables commands may still see

# [budget]                                   # per turn; when spent, the answer is synthesized
# max_cost = 0.50                            # US dollars (priced models); 0 = none
# max_tokens = 400000                        # 0 = none

# [models."qwen3-coder"]                     # what chat should know of one model
# input_per_mtok = 0.30                      # US dollars per million tokens (over the catalog's)
# output_per_mtok = 1.20
# cached_input_per_mtok = 0.03
# context_window = 262144
# rescue_tool_calls = false                  # leave tool calls it writes as text as text

# [checkpoints]                              # what /rewind and chat rewind can undo
# max_size_mb = 1024                         # per session; the oldest go past it
# max_file_mb = 8                            # bigger files are noticed, not stored

# [tools]                                    # what runs without asking, and what never runs
# allow = ["write_file", "edit_file"]
# deny = ["fetch_url"]
# allow_shell = ["go test", "git status"]    # with the sandbox off
# deny_shell = ["rm", "git push"]            # in every mode
# sub_agents_only = ["fetch_url"]            # only personas that list them get them

# [agents.reviewer]                          # a persona: chat --agent reviewer, or a sub-agent
# description = "reviews Go code for bugs"
# instructions = "You review Go code. Cite file and line."
# tools = ["read_file", "grep"]
# max_steps = 8

# [[hooks.PreToolUse]]                       # your command before each matching call (see the README)
# matcher = "run_shell|write_file"           # a regular expression on the tool name
# command = "./scripts/policy-check"         # exit 2 blocks; stderr goes to the model
# timeout = "10s"

# [mcp.github]                               # an MCP server, connected when the model asks
# command = "github-mcp-server"
# args = ["stdio"]
# env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
# allow = ["list_issues"]

# [lsp.gopls]                                # a language server (gopls, typescript, pyright,
# enabled = false                            # rust-analyzer and clangd are found on PATH)
# [lsp.zig]
# command = ["zls"]
# extensions = ["zig"]
# root_markers = ["build.zig"]
# wait = "2s"                                # how long an edit waits for its diagnostics
`

// Init writes Template to path unless a file is already there.
func Init(path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists; edit it instead", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(Template), 0o600)
}
