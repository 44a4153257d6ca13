package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
)

// Command is a /-command that makes sense without a screen (an editor's
// menu); Hint describes its argument ("" for none).
type Command struct {
	Name, Description, Hint string
	Run                     func(ctx context.Context, args string) (CommandResult, error)
}

// CommandResult is what a /-command did: Show is text for the person,
// Prompt (when set) runs as a turn instead, Turn runs as given.
type CommandResult struct {
	Show   string
	Prompt string
	Model  string // the model Prompt's turn names ("": the run's)
	Turn   *agent.Turn
}

// Commands are the REPL's /-commands that make sense without a screen.
func (r *Run) Commands() []Command {
	own := r.screenlessCommands()
	return append(append(own, r.promptCommands()...), r.promptFileCommands(own)...)
}

// promptFileCommands are the prompt files but those named as one of own;
// a project's not trusted yet is refused with what to do.
func (r *Run) promptFileCommands(own []Command) []Command {
	cmds, _, _ := r.PromptFiles()
	var out []Command
	for _, c := range cmds {
		if slices.ContainsFunc(own, func(o Command) bool { return o.Name == c.Name }) {
			continue
		}
		out = append(out, Command{Name: c.Name, Description: c.Description + " (" + c.Source + ")", Hint: c.ArgumentHint,
			Run: func(_ context.Context, args string) (CommandResult, error) {
				text, err := r.ExpandPromptFile(c, args)
				return CommandResult{Prompt: text, Model: c.Model}, err
			}})
	}
	return out
}

// promptCommands are the prompts of the connected MCP servers: the line
// is expanded as a typed /SERVER:PROMPT is (ExpandInput).
func (r *Run) promptCommands() []Command {
	m := r.MCP()
	if m == nil {
		return nil
	}
	var out []Command
	for _, p := range m.Prompts() {
		line := p.Command()
		out = append(out, Command{Name: strings.TrimPrefix(line, "/"), Description: cmp.Or(p.Description, p.Title, "a prompt of the MCP server "+p.Server),
			Hint: p.Usage(),
			Run: func(_ context.Context, args string) (CommandResult, error) {
				return CommandResult{Prompt: strings.TrimSpace(line + " " + args)}, nil
			}})
	}
	return out
}

func (r *Run) screenlessCommands() []Command {
	a := r.agent
	return []Command{
		{Name: "compact", Description: "summarize the earlier turns to free the context window", Hint: "what to keep (optional)",
			Run: func(ctx context.Context, args string) (CommandResult, error) {
				return CommandResult{Turn: a.Compact(ctx, args)}, nil
			}},
		{Name: "context", Description: "what the next request carries, by part",
			Run: func(context.Context, string) (CommandResult, error) {
				return CommandResult{Show: a.ContextReport().Report(a.ContextSize(), r.ProjectFiles())}, nil
			}},
		{Name: "init", Description: "write an AGENTS.md for this repository (you approve the write)",
			Run: func(context.Context, string) (CommandResult, error) {
				return CommandResult{Prompt: agent.InitPrompt}, nil
			}},
		{Name: "tools", Description: "the tools and whether they ask",
			Run: func(context.Context, string) (CommandResult, error) {
				var b strings.Builder
				b.WriteString(r.Sandbox() + "\n")
				for _, t := range r.ToolStates() {
					fmt.Fprintf(&b, "\n- `%s`: %s", t.Name, t.State)
				}
				return CommandResult{Show: b.String()}, nil
			}},
	}
}

// EditorServer is an MCP server an editor hands a session.
type EditorServer struct {
	Name, Command, URL string
	Args               []string
	Env, Headers       map[string]string
}

// WithEditorServers is cfg with the servers an editor passes added as
// config entries connected at start (the editor's servers are meant to be
// there); a name the config already uses gets a suffix. One that the
// config's rules refuse is left out, and said through report.
func WithEditorServers(cfg config.Config, servers []EditorServer, report func(string)) config.Config {
	out := make(map[string]config.MCPConfig, len(cfg.MCP)+len(servers))
	for k, v := range cfg.MCP {
		out[k] = v
	}
	for _, m := range servers {
		name := editorServerName(out, m.Name)
		mc := config.MCPConfig{Command: m.Command, Args: m.Args, Env: m.Env, URL: m.URL, Headers: m.Headers,
			Eager: true, Description: "passed by the editor"}
		if err := config.CheckMCP(name, mc); err != nil {
			report(fmt.Sprintf("the editor's MCP server %q is left out: %v", m.Name, err))
			continue
		}
		out[name] = mc
	}
	if len(out) > 0 {
		cfg.MCP = out
	}
	return cfg
}

// editorServerName is an editor's server name in the characters and the
// length a tool name's prefix may have, not yet in have.
func editorServerName(have map[string]config.MCPConfig, given string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, given)
	name = strings.ReplaceAll(name, "__", "_")
	if len(name) > 20 {
		name = name[:20]
	}
	for base, i := name, 2; ; i++ {
		if _, taken := have[name]; !taken {
			return name
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}
