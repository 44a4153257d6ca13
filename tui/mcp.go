package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
)

// An MCP server's prompts are commands (/SERVER:PROMPT key=value …; the
// required arguments not given are asked one by one), its resources are
// mentions (@SERVER:URI) offered beside the files.

// mcpWait bounds connecting a server and asking it for a prompt or a
// resource.
const mcpWait = time.Minute

// promptAsk is a prompt line and the required arguments still to type.
type promptAsk struct {
	line    string
	missing []app.MCPPromptArg
}

type promptMsg struct {
	line    string
	missing []app.MCPPromptArg
	exp     app.ExpandedInput
	err     error
}

// mcpConnectedMsg: a server connected for completion; the lists redraw.
type mcpConnectedMsg struct {
	name string
	err  error
}

// runPrompt asks the server for a prompt's messages (or first which
// arguments are missing).
func (m *Model) runPrompt(line string) tea.Cmd {
	mc := m.app.MCP()
	m.notice = "asking the MCP server for " + strings.Fields(line)[0] + "…"
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
		defer cancel()
		missing, err := mc.MissingArgs(ctx, line)
		if err != nil || len(missing) > 0 {
			return promptMsg{line: line, missing: missing, err: err}
		}
		exp, err := mc.Expand(ctx, line)
		return promptMsg{line: line, exp: exp, err: err}
	}
}

func (m *Model) onPrompt(msg promptMsg) tea.Cmd {
	m.notice = ""
	switch {
	case msg.err != nil:
		m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(msg.err.Error())))
		if m.input.empty() {
			m.input.set(msg.line) // nothing is lost: fix it and send again
		}
		return nil
	case len(msg.missing) > 0:
		m.promptAsk = &promptAsk{line: msg.line, missing: msg.missing}
		m.askArg()
		return nil
	case m.busy: // a turn started meanwhile: the prompt waits for it
		m.loop.Add(msg.line, false)
		return nil
	}
	m.attachments = append(m.attachments, msg.exp.Files...)
	return m.startTurn(msg.exp.Text)
}

// askArg says which argument the input takes now.
func (m *Model) askArg() {
	a := m.promptAsk.missing[0]
	what := a.Name
	if a.Description != "" {
		what += " (" + a.Description + ")"
	}
	m.notice = strings.Fields(m.promptAsk.line)[0] + " needs " + visibleLine(what) + ": type it, then enter · esc gives up"
}

// promptArgTyped takes the input as the argument asked for; the prompt
// runs when none is left.
func (m *Model) promptArgTyped() tea.Cmd {
	pa := m.promptAsk
	value := strings.TrimSpace(m.input.value())
	m.input.clear()
	pa.line += " " + pa.missing[0].Name + "=" + quoteArg(value)
	pa.missing = pa.missing[1:]
	if len(pa.missing) > 0 {
		m.askArg()
		return nil
	}
	m.promptAsk = nil
	return m.runPrompt(pa.line)
}

// quoteArg quotes a value that holds a space or a quote.
func quoteArg(v string) string {
	if !strings.ContainsAny(v, " \t\"'") && v != "" {
		return v
	}
	if strings.Contains(v, `"`) {
		return "'" + v + "'"
	}
	return `"` + v + `"`
}

// mcpCommands are the prompts of the connected servers as commands, and
// each server not connected yet as /SERVER: (tab connects it).
func mcpCommands(mc *app.MCP) []command {
	if mc == nil {
		return nil
	}
	var out []command
	for _, p := range mc.Prompts() {
		out = append(out, command{name: visibleLine(p.Command()), args: visibleLine(p.Usage()),
			help: visibleLine(cmp.Or(p.Description, p.Title, "a prompt of "+p.Server)), idleOnly: true})
	}
	for _, n := range mc.Names() {
		if !mc.Connected(n) {
			out = append(out, command{name: "/" + n + ":", help: "the prompts of the MCP server " + n + " (tab connects it)"})
		}
	}
	return out
}

// connectForCompletion connects the server a /SERVER: or @SERVER: being
// typed names, once, so its prompts or resources can be offered.
func (m *Model) connectForCompletion(prefix string) tea.Cmd {
	mc := m.app.MCP()
	if mc == nil {
		return nil
	}
	name, _, ok := strings.Cut(prefix, ":")
	if !ok || mc.Connected(name) || m.mcpConnecting[name] || !slices.Contains(mc.Names(), name) {
		return nil
	}
	if m.mcpConnecting == nil {
		m.mcpConnecting = map[string]bool{}
	}
	m.mcpConnecting[name] = true
	m.notice = "connecting the MCP server " + name + "…"
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
		defer cancel()
		return mcpConnectedMsg{name: name, err: mc.Connect(ctx, name)}
	}
}

func (m *Model) onMCPConnected(msg mcpConnectedMsg) tea.Cmd {
	delete(m.mcpConnecting, msg.name)
	m.notice = ""
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(msg.err.Error())))
		return nil
	}
	return m.refreshMentions()
}

// resourceMentions are the resources of the connected servers as @
// completions (SERVER:URI), with their titles.
func resourceMentions(mc *app.MCP) (names []string, titles map[string]string) {
	if mc == nil {
		return nil, nil
	}
	titles = map[string]string{}
	for _, r := range mc.Resources() {
		name := strings.TrimPrefix(r.Mention(), "@")
		names = append(names, name)
		titles[name] = r.Label()
	}
	return names, titles
}

// readResources reads the @SERVER:URI mentions of text into msg (IO, in
// resolveMentions' command); those that ask are left for the person
// unless confirmed.
func readResources(mc *app.MCP, text string, confirmed bool, msg *mentionedMsg) {
	if mc == nil {
		return
	}
	all, asking := mc.Mentions(text)
	if len(all) == 0 {
		return
	}
	if len(asking) > 0 && !confirmed {
		msg.asking = append(msg.asking, asking...)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
	defer cancel()
	parts, errs := mc.ReadMentions(ctx, text)
	msg.parts = append(msg.parts, parts...)
	for _, e := range errs {
		msg.errs = append(msg.errs, e.Error())
	}
}

// mcpListing is /mcp: each server, its state, tools, prompts and
// resources.
func mcpListing(st *styles, width int, servers []MCPState) string {
	var b strings.Builder
	b.WriteString("MCP servers (the model connects one with mcp_connect when it needs it; /SERVER:PROMPT runs a prompt, @SERVER:URI attaches a resource):")
	w := max(width-16, 10)
	for _, s := range servers {
		status := s.Status
		if s.Login != "" && s.Login != "-" {
			status += " · " + s.Login
		}
		b.WriteString(fmt.Sprintf("\n  %-12s %s · %s", visibleLine(s.Name), truncateWidth(visibleLine(status), max(width/2, 20)), truncateWidth(visibleLine(s.Transport), max(width/3, 16))))
		indent := "\n  " + strings.Repeat(" ", 12) + " "
		if len(s.Tools) > 0 {
			b.WriteString(indent + st.dim.Render(truncateWidth(visibleLine("tools: "+strings.Join(s.Tools, ", ")), w)))
		}
		if len(s.Prompts) > 0 {
			var names []string
			for _, p := range s.Prompts {
				names = append(names, p.Command())
			}
			b.WriteString(indent + st.dim.Render(truncateWidth(visibleLine("prompts: "+strings.Join(names, " ")), w)))
		}
		if len(s.Resources) > 0 {
			var names []string
			for _, r := range s.Resources {
				names = append(names, r.Mention())
			}
			b.WriteString(indent + st.dim.Render(truncateWidth(visibleLine(fmt.Sprintf("resources (%d): %s", len(names), strings.Join(names, " "))), w)))
		}
	}
	return b.String()
}

// promptFileMsg is a prompt file's expansion, or why it will not run.
type promptFileMsg struct {
	line, text, model string
	err               error
}

// runPromptFile expands a prompt file (asking, for a project's file not
// trusted yet, through the approval prompt) and runs its turn.
func (m *Model) runPromptFile(c app.PromptFile, args, line string) tea.Cmd {
	return func() tea.Msg {
		var ask app.IdleAsker
		if m.opts.Approvals != nil {
			ask = m.opts.Approvals
		}
		text, err := m.app.RunPromptFile(m.ctx, ask, c, args)
		return promptFileMsg{line: line, text: text, model: c.Model, err: err}
	}
}

func (m *Model) onPromptFile(msg promptFileMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(msg.err.Error())))
		if m.input.empty() {
			m.input.set(msg.line) // nothing is lost
		}
		return nil
	case m.busy:
		m.loop.Add(msg.line, false)
		return nil
	}
	return m.startTurnWith(msg.model, msg.text)
}

// reviewMsg is a review's request, made behind (git runs in the box).
type reviewMsg struct {
	text  string
	files int
	err   error
}

// reviewAnswer is how the REPL asks a review's findings to be written.
const reviewAnswer = "\n\nAnswer with the findings as a list, most severe first, each as `severity file:line: title`, then why it matters."

// review is /review [BASE]: the changes, reviewed in a turn that writes
// nothing (plan mode's box and rules, the writing tools not offered).
func (m *Model) review(base string) tea.Cmd {
	m.notice = "reading the changes…"
	return func() tea.Msg {
		text, files, err := m.app.ReviewRequest(m.ctx, base)
		return reviewMsg{text: text, files: files, err: err}
	}
}

func (m *Model) onReview(msg reviewMsg) tea.Cmd {
	m.notice = ""
	if msg.err == nil {
		msg.err = m.app.SetReviewing(true)
	}
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+visibleLine(msg.err.Error())))
		return nil
	}
	m.reviewing = true
	m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("reviewing %d changed file%s: nothing is written in this turn", msg.files, map[bool]string{true: "", false: "s"}[msg.files == 1])))
	return m.startTurnShown("/review", msg.text+reviewAnswer)
}
