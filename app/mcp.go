package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool/mcpclient"
)

// What the front ends show of the MCP servers' prompts, resources and
// questions.
type (
	MCPPrompt     = mcpclient.Prompt
	MCPResource   = mcpclient.Resource
	Elicitation   = mcpclient.Elicitation
	ElicitField   = mcpclient.Field
	ElicitAnswer  = mcpclient.Answer
	Elicitor      = mcpclient.Elicitor
	ExpandedInput = mcpclient.Expanded
	MCPPromptArg  = mcpclient.PromptArg
)

// MCP is what a person does with the run's MCP servers besides their
// tools: a server's prompt as /SERVER:PROMPT, its resources as
// @SERVER:URI, its questions (elicitation) answered.
type MCP struct{ servers *mcpclient.Servers }

// MCP is the run's MCP servers (nil without any configured).
func (r *Run) MCP() *MCP { return r.ext.mcpView }

// OpenMCP makes the configured MCP servers outside a run (chat mcp
// list, prompts, resources); nothing starts before Connect. Close them.
func OpenMCP(cfg config.Config, env Env) *MCP { return &MCP{newServers(cfg, env)} }

// newServers are the configured servers as every run makes them.
func newServers(cfg config.Config, env Env) *mcpclient.Servers {
	s := mcpclient.New(cfg.MCP, env.Getenv, env.Workdir)
	s.SetLogins(xdg.State.Chat(env.Getenv, "mcp-auth"))
	return s
}

// Login runs an HTTP server's OAuth login in the browser and keeps its
// tokens; Logout forgets them; LoginState says which holds.
func (m *MCP) Login(ctx context.Context, name string, say func(string), open func(string) error) error {
	return m.servers.Login(ctx, name, mcpclient.LoginUI{Say: say, Open: open})
}

func (m *MCP) Logout(name string) (bool, error) { return m.servers.Logout(name) }
func (m *MCP) LoginState(name string) string    { return m.servers.LoginState(name) }

// Close stops the servers.
func (m *MCP) Close() error { return m.servers.Close() }

// States describes each server (connected ones with their tools,
// prompts and resources).
func (m *MCP) States() []MCPState {
	var out []MCPState
	for _, st := range m.servers.States() {
		out = append(out, MCPState{Name: st.Name, Transport: st.Transport, Status: st.Status, Tools: st.Tools, Prompts: st.Prompts, Resources: st.Resources,
			Login: m.servers.LoginState(st.Name)})
	}
	return out
}

// Names are the configured servers.
func (m *MCP) Names() []string { return m.servers.Names() }

// Connect connects a server (its prompts and resources are then listed);
// its tools stay the model's to ask for with mcp_connect.
func (m *MCP) Connect(ctx context.Context, name string) error {
	_, err := m.servers.Connect(ctx, name)
	return err
}

// ConnectAll connects every server at once; one that fails says so in
// its state.
func (m *MCP) ConnectAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, n := range m.Names() {
		wg.Go(func() { _ = m.Connect(ctx, n) })
	}
	wg.Wait()
}

// Prompts and Resources are those of the connected servers.
func (m *MCP) Prompts() []MCPPrompt     { return m.servers.Prompts() }
func (m *MCP) Resources() []MCPResource { return m.servers.Resources() }

// Declining is the Elicitor of a front end that cannot show a form: it
// declines, and say tells the person why ("print mode cannot ask you").
func Declining(say func(string), why string) Elicitor {
	return func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
		msg, _, _ := strings.Cut(strings.TrimSpace(e.Message), "\n")
		say(fmt.Sprintf("the MCP server %s asked for input (%s); %s, so it was declined", e.Server, msg, why))
		return ElicitAnswer{Action: "decline"}, nil
	}
}

// SetElicitor sets who answers the servers' questions (nil: declined).
func (m *MCP) SetElicitor(e Elicitor) { m.servers.SetElicitor(e) }

// IsPromptLine says line calls a prompt: /SERVER:NAME where SERVER is
// configured.
func (m *MCP) IsPromptLine(line string) bool {
	server, _, _, ok, _ := mcpclient.ParsePromptLine(line)
	return ok && m.servers.IsServer(server)
}

// Connected says the server is connected.
func (m *MCP) Connected(name string) bool { return m.servers.Connected(name) }

// MissingArgs connects the server of a /SERVER:NAME line and says which
// required arguments the line does not give.
func (m *MCP) MissingArgs(ctx context.Context, line string) ([]MCPPromptArg, error) {
	server, name, args, ok, err := mcpclient.ParsePromptLine(line)
	if !ok || err != nil {
		return nil, err
	}
	if err := m.Connect(ctx, server); err != nil {
		return nil, err
	}
	p, found := m.servers.Prompt(server, name)
	if !found {
		return nil, nil // Expand says what there is
	}
	return p.Missing(args), nil
}

// Expand runs /SERVER:NAME key=value …: the server's messages for it.
func (m *MCP) Expand(ctx context.Context, line string) (ExpandedInput, error) {
	server, name, args, ok, err := mcpclient.ParsePromptLine(line)
	switch {
	case !ok || !m.servers.IsServer(server):
		return ExpandedInput{}, fmt.Errorf("%s is not an MCP prompt (/SERVER:PROMPT)", strings.Fields(line)[0])
	case err != nil:
		return ExpandedInput{}, err
	}
	return m.servers.GetPrompt(ctx, server, name, args)
}

// Mentions are the @SERVER:URI of text, and those of them whose server
// reads only after the person says yes (as a file outside the working
// directory does).
func (m *MCP) Mentions(text string) (all, asking []string) {
	for _, sv := range m.servers.Mentions(text) {
		mention := "@" + sv[0] + ":" + sv[1]
		all = append(all, mention)
		if !m.servers.ReadsWithoutAsking(sv[0]) {
			asking = append(asking, mention)
		}
	}
	return all, asking
}

// ExpandInput is what a person's input becomes where nobody is asked
// (print mode, an editor): a /SERVER:PROMPT line the server's messages,
// each @SERVER:URI it mentions attached (typed by the person: they asked
// for it). Without servers it is the input as it is.
func (r *Run) ExpandInput(ctx context.Context, text string, files []session.FilePart) (string, []session.FilePart, error) {
	m := r.MCP()
	if m == nil {
		return text, files, nil
	}
	if m.IsPromptLine(text) {
		exp, err := m.Expand(ctx, text)
		if err != nil {
			return "", nil, err
		}
		text, files = exp.Text, append(files, exp.Files...)
	}
	parts, errs := m.ReadMentions(ctx, text)
	if len(errs) > 0 {
		return "", nil, errors.Join(errs...)
	}
	return text, append(files, parts...), nil
}

// ReadMentions reads the resources text mentions, as attachments; each
// that fails says why (the others are read).
func (m *MCP) ReadMentions(ctx context.Context, text string) ([]session.FilePart, []error) {
	var parts []session.FilePart
	var errs []error
	for _, sv := range m.servers.Mentions(text) {
		part, err := m.servers.ReadResource(ctx, sv[0], sv[1])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		parts = append(parts, part)
	}
	return parts, errs
}
