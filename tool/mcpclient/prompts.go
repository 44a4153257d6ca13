package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/session"
)

// Bounds of what one prompt may put into the conversation: a server that
// returns more is refused with what it sent, not cut silently.
const (
	maxPromptMessages = 200
	maxPromptBytes    = session.MaxTextBytes
)

// Prompt is a prompt a connected server offers: the REPL's
// /SERVER:NAME command.
type Prompt struct {
	Server, Name, Title, Description string
	Args                             []PromptArg
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// Command is how a person calls the prompt: /SERVER:NAME.
func (p Prompt) Command() string { return "/" + p.Server + ":" + p.Name }

// Usage is how its arguments are written: "city=… [state=…]" (the
// optional ones in brackets).
func (p Prompt) Usage() string {
	var out []string
	for _, a := range p.Args {
		if a.Required {
			out = append(out, a.Name+"=…")
		} else {
			out = append(out, "["+a.Name+"=…]")
		}
	}
	return strings.Join(out, " ")
}

// Expanded is what a prompt puts into the conversation: its messages as
// the text of one user message, and the images and resources they embed
// as its attachments.
type Expanded struct {
	Text  string
	Files []session.FilePart
}

// Prompts are the prompts of the connected servers, by server then name.
func (s *Servers) Prompts() []Prompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Prompt
	for _, name := range s.Names() {
		if c := s.conns[name]; c != nil {
			out = append(out, c.prompts...)
		}
	}
	return out
}

// listPrompts asks a server its prompts (none when it offers none).
func listPrompts(ctx context.Context, server string, cs *mcp.ClientSession) ([]Prompt, error) {
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Prompts == nil {
		return nil, nil
	}
	var out []Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing its prompts: %w", err)
		}
		pr := Prompt{Server: server, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Args = append(pr.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ParsePromptLine reads "/SERVER:NAME key=value key2="two words"" into
// its server, prompt and arguments; ok is false when line is not of
// that form.
func ParsePromptLine(line string) (server, name string, args map[string]string, ok bool, err error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", "", nil, false, nil
	}
	head, rest, _ := strings.Cut(line[1:], " ")
	server, name, found := strings.Cut(head, ":")
	if !found || server == "" || name == "" || strings.ContainsAny(server, "/") {
		return "", "", nil, false, nil
	}
	args, err = parseArgs(rest)
	return server, name, args, true, err
}

// parseArgs reads key=value pairs; a value may be quoted with " or '.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t\n") {
			word, _, _ := strings.Cut(s, " ")
			return nil, fmt.Errorf("arguments go as key=value, not %q", word)
		}
		var value string
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			end := strings.IndexByte(rest[1:], rest[0])
			if end < 0 {
				return nil, fmt.Errorf("the value of %s has no closing %c", key, rest[0])
			}
			value, s = rest[1:1+end], rest[2+end:]
		} else {
			value, s, _ = strings.Cut(rest, " ")
		}
		args[key] = value
	}
	return args, nil
}

// Prompt finds a connected server's prompt.
func (s *Servers) Prompt(server, name string) (Prompt, bool) {
	for _, p := range s.Prompts() {
		if p.Server == server && p.Name == name {
			return p, true
		}
	}
	return Prompt{}, false
}

// Missing are the required arguments args does not give.
func (p Prompt) Missing(args map[string]string) []PromptArg {
	var out []PromptArg
	for _, a := range p.Args {
		if _, ok := args[a.Name]; a.Required && !ok {
			out = append(out, a)
		}
	}
	return out
}

// GetPrompt connects the server if need be, checks the arguments and
// asks the server for the prompt's messages.
func (s *Servers) GetPrompt(ctx context.Context, server, name string, args map[string]string) (Expanded, error) {
	c, err := s.live(ctx, server)
	if err != nil {
		return Expanded{}, err
	}
	s.mu.Lock()
	prompts := c.prompts
	s.mu.Unlock()
	i := slices.IndexFunc(prompts, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		var names []string
		for _, p := range prompts {
			names = append(names, p.Name)
		}
		if len(names) == 0 {
			return Expanded{}, fmt.Errorf("the MCP server %s offers no prompts", server)
		}
		return Expanded{}, fmt.Errorf("the MCP server %s has no prompt %q; it has: %s", server, name, strings.Join(names, ", "))
	}
	p := prompts[i]
	if missing := p.Missing(args); len(missing) > 0 {
		return Expanded{}, fmt.Errorf("%s needs %s (as key=value)", p.Command(), argNames(missing))
	}
	for k := range args {
		if !slices.ContainsFunc(p.Args, func(a PromptArg) bool { return a.Name == k }) {
			return Expanded{}, fmt.Errorf("%s takes no argument %q (it takes: %s)", p.Command(), k, argNames(p.Args))
		}
	}
	res, err := reading(ctx, s, server, func(cs *mcp.ClientSession) (*mcp.GetPromptResult, error) {
		return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	})
	if err != nil {
		return Expanded{}, fmt.Errorf("%s: %w", p.Command(), err)
	}
	return expand(p.Command(), res.Messages)
}

func argNames(args []PromptArg) string {
	if len(args) == 0 {
		return "none"
	}
	var names []string
	for _, a := range args {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// expand turns a prompt's messages into one user message: text as it
// is (an assistant's part marked as such), images and embedded resources
// as attachments.
func expand(command string, msgs []*mcp.PromptMessage) (Expanded, error) {
	if len(msgs) > maxPromptMessages {
		return Expanded{}, fmt.Errorf("%s returned %d messages; chat takes at most %d from a prompt (nothing was sent)", command, len(msgs), maxPromptMessages)
	}
	var out Expanded
	var texts []string
	size := 0
	for i, m := range msgs {
		if m == nil || m.Content == nil {
			continue
		}
		var text string
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			text = c.Text
		case *mcp.ImageContent:
			out.Files = append(out.Files, session.FilePart{MediaType: c.MIMEType, Filename: fmt.Sprintf("%s image %d", command, i+1), Data: c.Data})
			size += len(c.Data)
		case *mcp.EmbeddedResource:
			part, err := resourcePart(c.Resource)
			if err != nil {
				return Expanded{}, fmt.Errorf("%s: %w", command, err)
			}
			out.Files = append(out.Files, part)
			size += len(part.Data)
		case *mcp.ResourceLink:
			text = fmt.Sprintf("[resource %s: %s]", c.Name, c.URI)
		default:
			return Expanded{}, fmt.Errorf("%s returned content chat cannot send (%T)", command, c)
		}
		if text == "" {
			continue
		}
		if m.Role == "assistant" {
			text = "(assistant) " + text
		}
		texts = append(texts, text)
		size += len(text)
	}
	if size > maxPromptBytes {
		return Expanded{}, fmt.Errorf("%s returned over %d MiB; chat takes at most that from a prompt (nothing was sent)", command, maxPromptBytes>>20)
	}
	out.Text = strings.Join(texts, "\n\n")
	if out.Text == "" && len(out.Files) == 0 {
		return Expanded{}, errors.New(command + " returned no messages")
	}
	return out, nil
}
