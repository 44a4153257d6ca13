package tui

import (
	"context"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

type command struct {
	name, args, help string
	idleOnly         bool
}

var commands = []command{
	{"/help", "", "keys and commands", false},
	{"/new", "", "start a new session", true},
	{"/model", "[NAME]", "show or switch the model", true},
	{"/agent", "[NAME]", "list agents or switch to one", true},
	{"/models", "", "list the server's models", false},
	{"/steps", "[N]", "show or set the step budget (0 = unlimited)", false},
	{"/system", "[TEXT]", "show or replace the system prompt", true},
	{"/copy", "", "copy the last answer to the clipboard (OSC 52)", false},
	{"/attach", "PATH", "attach an image or a text file to the next message", false},
	{"/tools", "", "list the tools and whether they ask first", false},
	{"/sandbox", "", "what the sandbox lets a command do (which box, writes, network, hidden files)", false},
	{"/network", "[allow HOST | forget HOST]", "the hosts boxed commands may reach, and this session's connections; allow one for this session, or forget one", false},
	{"/skills", "", "list the skills the model can load", false},
	{"/mcp", "", "list the MCP servers, their state and tools", false},
	{"/retry", "", "ask for the last answer again", true},
	{"/undo", "", "remove the last question and its answer (files stay as they are)", true},
	{"/rewind", "[N [files|conversation] [force]]", "list the turns and the files each changed; put files and conversation back to before turn N", true},
	{"/sessions", "", "pick a saved session to resume", true},
	{"/resume", "[ID]", "switch to a saved session (without ID: pick one)", true},
	{"/continue", "", "go on after a synthesized answer, with a fresh step budget", true},
	{"/plan", "[TEXT]", "plan mode (also shift+tab): the agent reads and plans, nothing is written; TEXT is the task", true},
	{"/go", "[edit]", "leave plan mode and carry out the plan (edit: in $EDITOR first)", true},
	{"/compact", "[TEXT]", "summarize the earlier turns to free the context window (TEXT: what to keep)", true},
	{"/context", "", "what the context window holds, in tokens", false},
	{"/review", "[BASE]", "review the working tree's changes (or the branch against BASE) in a turn that writes nothing", true},
	{"/diagnostics", "", "the language servers' errors and warnings in the files they know", false},
	{"/worktree", "[NAME | list | diff NAME | merge NAME | rm [--force] NAME]", "move the session into git worktree NAME (branch chat/NAME), or list, diff, merge or remove chat's worktrees", false},
	{"/cost", "", "tokens and cost of the session and its last turn, and what the next request carries", false},
	{"/init", "", "ask the model to write an AGENTS.md for this repository (you approve the file)", true},
	{"/hooks", "", "list the hooks that run, and the project's waiting for trust", false},
	{"/serve", "", "show this session on a web page too (prints its address; the page steers the same turns)", false},
	{"/ps", "[N]", "list the background jobs (N: follow one's output live; esc stops following)", false},
	{"/stop", "N", "end background job N and what it started", false},
	{"/quit", "", "leave (also ctrl+d, or ctrl+c twice)", false},
}

// IsCommand reports whether /name is one of the REPL's own commands: a
// prompt file of that name never runs as it.
func IsCommand(name string) bool {
	_, ok := findCommand("/" + name)
	return ok
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	if name == "/exit" {
		return commands[len(commands)-1], true
	}
	return command{}, false
}

// completionView lists the commands matching what is typed after "/".
func completionView(st *styles, v string, all []command) string {
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return ""
	}
	var shown []command
	nameW, argsW := 10, 10 // the columns fit the widest shown (a server's prompt names are long)
	for _, c := range all {
		if strings.HasPrefix(c.name, v) {
			shown = append(shown, c)
			nameW, argsW = max(nameW, min(ansi.StringWidth(c.name), 40)), max(argsW, min(ansi.StringWidth(c.args), 30))
		}
	}
	var lines []string
	for _, c := range shown {
		lines = append(lines, st.statusHi.Render(padRight(c.name, nameW))+st.dim.Render(" "+padRight(c.args, argsW)+" "+c.help))
	}
	return strings.Join(lines, "\n")
}

// padRight pads s with spaces to width cells (a wider s is left whole).
func padRight(s string, width int) string {
	return s + strings.Repeat(" ", max(width-ansi.StringWidth(s), 0))
}

// allCommands are the built-in commands, the MCP servers' prompts and
// the prompt files.
func allCommands(mc *app.MCP) []command {
	return append(slices.Clip(commands), mcpCommands(mc)...)
}

// allCommands is allCommands with the prompt files, read at most every
// promptFilesFresh (the completion list is drawn at every frame).
func (m *Model) allCommands() []command {
	return append(allCommands(m.app.MCP()), m.promptFileCommands()...)
}

const promptFilesFresh = 2 * time.Second

func (m *Model) promptFileCommands() []command {
	if now := time.Now(); m.promptFiles.at.IsZero() || now.Sub(m.promptFiles.at) > promptFilesFresh {
		m.promptFiles.at = now
		cmds, _, _ := m.app.PromptFiles()
		m.promptFiles.list = m.promptFiles.list[:0]
		for _, c := range cmds {
			if IsCommand(c.Name) || m.mcpPrompt(c.Name) {
				continue // listed by /help as not run
			}
			m.promptFiles.list = append(m.promptFiles.list, command{name: visibleLine("/" + c.Name), args: visibleLine(c.ArgumentHint),
				help: visibleLine(c.Description + " (" + c.Source + ")"), idleOnly: true})
		}
	}
	return m.promptFiles.list
}

// mcpPrompt says whether /name is a connected MCP server's prompt (it
// comes first).
func (m *Model) mcpPrompt(name string) bool {
	mc := m.app.MCP()
	if mc == nil {
		return false
	}
	for _, p := range mc.Prompts() {
		if p.Command() == "/"+name {
			return true
		}
	}
	return false
}

// promptFilesHelp is /help's part on the prompt files: each with where it
// is from, and those that do not run and why.
func (m *Model) promptFilesHelp() string {
	cmds, shadowed, problems := m.app.PromptFiles()
	if len(cmds)+len(shadowed)+len(problems) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nprompt files (.chat/commands, .claude/commands, .gemini/commands, ~/.config/chat/commands):")
	for _, c := range cmds {
		desc := c.Description
		switch {
		case IsCommand(c.Name):
			desc = "not run: /" + c.Name + " is built in"
		case m.mcpPrompt(c.Name):
			desc = "not run: /" + c.Name + " is an MCP server's prompt"
		}
		b.WriteString(fmt.Sprintf("\n  %-10s %-8s %s · %s", visibleLine("/"+c.Name), visibleLine(c.ArgumentHint), visibleLine(desc), c.Source))
	}
	for _, c := range shadowed {
		b.WriteString(fmt.Sprintf("\n  %-10s %-8s not run: a file of that name comes first · %s", visibleLine("/"+c.Name), "", c.Source))
	}
	for _, p := range problems {
		b.WriteString("\n  left out: " + visibleLine(p))
	}
	return b.String()
}

// completeCommand extends "/mo" as far as the matches agree; a /SERVER:
// completed connects that server, so its prompts can be offered.
func (m *Model) completeCommand() tea.Cmd {
	completeCommandName(&m.input, m.allCommands())
	return m.connectForCompletion(strings.TrimPrefix(m.input.value(), "/"))
}

func completeCommandName(in *input, all []command) {
	v := in.value()
	var match []string
	for _, c := range all {
		if strings.HasPrefix(c.name, v) {
			match = append(match, c.name)
		}
	}
	if len(match) == 0 {
		return
	}
	common := match[0]
	for _, s := range match[1:] {
		for !strings.HasPrefix(s, common) {
			common = common[:len(common)-1]
		}
	}
	if len(match) == 1 && !strings.HasSuffix(common, ":") { // /SERVER: goes on with a prompt name
		common += " "
	}
	in.set(common)
}

// command runs a slash command; ok is false for text that only looks like
// one ("/usr/bin is …"), which is then sent as a message.
func (m *Model) command(line string) (tea.Cmd, bool) {
	m.notice = "" // a notice is about the last command, not this one
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	if mc := m.app.MCP(); mc != nil && mc.IsPromptLine(line) {
		if m.busy { // as an idle-only command: after the turn
			m.loop.Add(strings.TrimSpace(line), false)
			m.notice = name + " runs when this turn ends · esc cancels the turn"
			return nil, true
		}
		return m.runPrompt(strings.TrimSpace(line)), true
	}
	c, known := findCommand(name)
	if !known {
		if pf, args, ok := m.app.PromptCommand(line, IsCommand); ok {
			if m.busy { // as an idle-only command: after the turn
				m.loop.Add(strings.TrimSpace(line), false)
				m.notice = name + " runs when this turn ends · esc cancels the turn"
				return nil, true
			}
			return m.runPromptFile(pf, args, strings.TrimSpace(line)), true
		}
		if strings.Count(name, "/") > 1 {
			return nil, false
		}
		m.notice = "unknown command " + name + " · /help lists them"
		return nil, true
	}
	if c.idleOnly && m.busy {
		// Queued like a message sent after the turn: it runs when the
		// turn ends, and a cancel gives it back to the input.
		m.loop.Add(strings.TrimSpace(line), false)
		m.notice = c.name + " runs when this turn ends · esc cancels the turn"
		return nil, true
	}
	a := m.app
	switch c.name {
	case "/help":
		help := m.blocks().help(m.app.MCP() != nil)
		if files := m.promptFilesHelp(); files != "" {
			help += "\n" + m.blocks().notice(m.st.notice, strings.TrimPrefix(files, "\n"))
		}
		m.print(help)
	case "/new":
		s := a.NewSession()
		m.usage.reset()
		m.lastAnswer, m.lastSynthesized = "", false
		m.usage.contextUsed = 0
		m.print(m.blocks().notice(m.st.notice, "── new session ──"))
		if host := m.app.Sessions(); host != nil {
			return func() tea.Msg { // creating its file is IO
				host.Started(s)
				return nil
			}, true
		}
	case "/model":
		if arg == "" {
			m.print(m.blocks().notice(m.st.notice, "model: "+a.Model()+" · /models lists what the server offers"))
			break
		}
		a.SetModel(arg)
		m.print(m.blocks().notice(m.st.notice, "model is now "+arg))
		// Kept either way (some servers list nothing, or not all they
		// serve), but a name the server does not list is said.
		list := m.app.Models
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ms, err := list(ctx)
			return modelsMsg{models: ms, err: err, check: arg}
		}, true
	case "/agent":
		if arg == "" {
			list := "no named agents (add [agents.NAME] to the config file)"
			if len(m.app.Personas()) > 0 {
				var names []string
				for _, n := range append([]string{"default"}, m.app.Personas()...) {
					if n == m.agentName || n == "default" && m.agentName == "" {
						n = "▸ " + n
					}
					names = append(names, n)
				}
				list = "agents: " + strings.Join(names, ", ") + " · /agent NAME switches (default: none of them)"
			}
			m.print(m.blocks().notice(m.st.notice, list))
			break
		}
		if err := m.app.SwitchAgent(arg); err != nil {
			m.print(m.blocks().notice(m.st.err, "✗ "+err.Error()))
			break
		}
		m.agentName = arg
		if arg == "default" {
			m.agentName = ""
		}
		m.print(m.blocks().notice(m.st.notice, "agent is now "+arg+" (model "+a.Model()+")"))
	case "/models":
		list := m.app.Models
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ms, err := list(ctx)
			return modelsMsg{models: ms, err: err}
		}, true
	case "/steps":
		sl := a.StepLimit()
		if arg == "" || sl == nil {
			m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("step budget: %s tool calls per turn (/steps N sets it, 0 = unlimited)", steps.Budget(sl.Max()))))
			break
		}
		n, err := strconv.Atoi(arg)
		b, perr := steps.Parse(n)
		if err != nil || perr != nil {
			m.notice = "/steps takes a number of tool calls, 0 for unlimited"
			break
		}
		sl.SetMax(b.Max())
		m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("step budget set to %s", b)))
	case "/system":
		if arg == "" {
			sys := "(none)"
			if msgs := a.Session().Messages(); len(msgs) > 0 && msgs[0].Role == session.RoleSystem {
				sys = msgs[0].Content
			}
			m.print(m.blocks().notice(m.st.notice, "system prompt:\n"+sys))
			break
		}
		a.SetSystem(arg)
		m.print(m.blocks().notice(m.st.notice, "system prompt replaced"))
	case "/copy":
		if m.lastAnswer == "" {
			m.notice = "nothing to copy yet"
			break
		}
		m.notice = fmt.Sprintf("copied the last answer (%d characters)", len(m.lastAnswer))
		return tea.SetClipboard(m.lastAnswer), true
	case "/attach":
		if arg == "" {
			m.notice = "/attach PATH adds an image or a text file to your next message"
			break
		}
		path := arg
		return func() tea.Msg {
			part, err := session.Attach(path)
			return attachedMsg{part: part, err: err}
		}, true
	case "/tools":
		tools := m.app.ToolStates()
		if len(tools) == 0 {
			m.notice = "no tools in this run"
			break
		}
		var b strings.Builder
		b.WriteString("tools:")
		nameW, stateW := 4, 4
		for _, t := range tools {
			nameW = min(max(nameW, len(visibleLine(t.Name))), 24)
			stateW = min(max(stateW, ansi.StringWidth(t.State)), 48)
		}
		for _, t := range tools {
			// One row each, never wrapped: name, how it is treated (whole),
			// and as much of the description as fits.
			state := truncateWidth(t.State, stateW)
			b.WriteString(fmt.Sprintf("\n  %-*s  %s%s  %s", nameW, truncateWidth(visibleLine(t.Name), nameW), state,
				strings.Repeat(" ", stateW-ansi.StringWidth(state)),
				truncateWidth(visibleLine(t.Description), max(m.width-nameW-stateW-6, 10))))
		}
		if box := m.app.Sandbox(); box != "" {
			b.WriteString("\n" + wrap(visibleLine(box), max(m.width-2, 20)))
		}
		m.print(m.blocks().notice(m.st.notice, b.String()))
	case "/sandbox":
		m.print(m.blocks().notice(m.st.notice, visibleLine(m.app.Sandbox())))
	case "/network":
		said, warn := networkCommand(m.app.Network(), arg)
		style := m.st.notice
		if warn {
			style = m.st.warn
		}
		m.print(m.blocks().notice(style, said))
	case "/skills":
		skills := m.app.Skills()
		if len(skills) == 0 {
			m.print(m.blocks().notice(m.st.notice, "no skills: put a folder with a SKILL.md under .chat/skills here, or under the config folder's skills/"))
			break
		}
		var b strings.Builder
		b.WriteString("skills (the model loads one when a task matches it):")
		for _, sk := range skills {
			b.WriteString(fmt.Sprintf("\n  %-14s %s", visibleLine(sk.Name), truncateWidth(visibleLine(strings.Join(strings.Fields(sk.Description), " ")), max(m.width-18, 10))))
			b.WriteString("\n  " + strings.Repeat(" ", 14) + " " + m.st.dim.Render(truncateWidth(visibleLine(sk.Dir), max(m.width-18, 10))))
		}
		m.print(m.blocks().notice(m.st.notice, b.String()))
	case "/mcp":
		servers := m.app.MCPStates()
		if len(servers) == 0 {
			m.print(m.blocks().notice(m.st.notice, "no MCP servers: add [mcp.NAME] to the config file, or chat mcp add"))
			break
		}
		m.print(m.blocks().notice(m.st.notice, mcpListing(&m.st, m.width, servers)))
	case "/retry":
		return m.retry(), true
	case "/undo":
		m.undo()
	case "/rewind":
		return m.rewind(arg), true
	case "/sessions":
		return m.openPicker(), true
	case "/resume":
		if arg == "" {
			return m.openPicker(), true
		}
		return m.resume(arg), true
	case "/continue":
		return m.continueTurn(), true
	case "/plan":
		return m.planCommand(arg), true
	case "/go":
		return m.goPlan(arg), true
	case "/compact":
		return m.compact(arg), true
	case "/context":
		m.print(m.blocks().notice(m.st.notice, a.ContextReport().Report(a.ContextSize(), m.app.ProjectFiles())))
	case "/cost":
		m.print(m.blocks().notice(m.st.notice, m.usage.report(m.app, m.price)))
	case "/review":
		return m.review(arg), true
	case "/worktree", "/worktrees":
		return m.worktree(arg), true
	case "/diagnostics":
		m.print(m.blocks().notice(m.st.notice, listener.VisibleString(m.app.DiagnosticsReport())))
	case "/init":
		return m.startTurn(app.InitPrompt), true
	case "/hooks":
		list := m.app.HookList()
		if list == "" {
			list = "no hooks"
		}
		m.print(m.blocks().notice(m.st.notice, list))
	case "/ps":
		return m.ps(arg), true
	case "/serve":
		return m.share(), true
	case "/stop":
		m.stopJob(arg)
	case "/quit":
		if m.busy {
			m.cancelBecause(atKeyboard)
		}
		return tea.Quit, true
	}
	return nil, true
}

func (m *Model) onModels(msg modelsMsg) tea.Cmd {
	if msg.check != "" {
		if msg.err == nil && len(msg.models) > 0 && !slices.Contains(msg.models, msg.check) {
			m.print(m.blocks().notice(m.st.warn, fmt.Sprintf("⚠ the server does not list %s (/models shows the %d it does); kept, since some servers serve more than they list", msg.check, len(msg.models))))
		}
		return nil
	}
	if msg.err != nil {
		m.print(m.blocks().notice(m.st.err, "✗ "+msg.err.Error()))
		return nil
	}
	cur := m.app.Model()
	var b strings.Builder
	b.WriteString(fmt.Sprintf("%d models (/model NAME switches):", len(msg.models)))
	for _, id := range msg.models {
		mark := "  "
		if id == cur {
			mark = "▸ "
		}
		b.WriteString("\n" + mark + id)
	}
	m.print(m.blocks().notice(m.st.notice, b.String()))
	return nil
}

func (bl blocks) help(withMCP bool) string {
	var b strings.Builder
	b.WriteString("keys: enter sends · shift+enter, alt+enter or ctrl+j: new line · ctrl+g: edit in $EDITOR · ↑/↓: history\n")
	b.WriteString("while a turn runs: enter injects into it · tab queues for after it · ↑ on empty input edits the newest queued · ctrl+x deletes it\n")
	b.WriteString("esc or ctrl+c cancels a turn · ctrl+c clears the input · ctrl+c twice or ctrl+d quits · ctrl+o shows thinking and tool output\n")
	b.WriteString("esc esc on an empty input edits your last message · @ mentions a file (tab completes) · ! at the start runs your own shell command\n")
	b.WriteString("shift+tab turns plan mode on or off (/plan, /go)\n")
	if withMCP {
		b.WriteString("MCP: /SERVER:PROMPT key=value runs a server's prompt · @SERVER:URI attaches its resource · tab moves to a server's question\n")
	}
	for _, c := range commands {
		b.WriteString(fmt.Sprintf("\n  %-10s %-8s %s", c.name, c.args, c.help))
	}
	return bl.notice(bl.st.notice, b.String())
}

// contextOf is how much of the context window a history used at its last
// answer, as the server counted it (0 when no answer carried usage).
func contextOf(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := msgs[i].Usage; msgs[i].Role == session.RoleAssistant && u != nil && u.Prompt+u.Completion > 0 {
			return u.Prompt + u.Completion
		}
	}
	return 0
}

// networkCommand is /network: the report, or allow / forget a host.
// networkCommand is /network: it says what the box's network allows, or
// changes it; warn marks what went wrong.
func networkCommand(n *tool.Network, arg string) (said string, warn bool) {
	verb, host, _ := strings.Cut(strings.TrimSpace(arg), " ")
	host = strings.ToLower(strings.TrimSpace(host))
	switch {
	case n == nil:
		return "no network for boxed commands in this run (no sandbox, or one without a network namespace)", false
	case verb == "":
		return listener.VisibleString(n.Report()), false
	case verb == "allow" && host != "":
		if err := n.AllowForSession(host); err != nil {
			return visibleLine(err.Error()), true
		}
		return "✓ boxed commands may reach " + visibleLine(host) + " in this session", false
	case verb == "forget" && host != "":
		had, err := n.Forget(host)
		switch {
		case err != nil:
			return visibleLine(err.Error()), true
		case had:
			return visibleLine(host) + " is no longer allowed by your answers (the config's list stays as it is)", false
		default:
			return visibleLine(host) + " was not allowed by an answer of yours", false
		}
	default:
		return "usage: /network, /network allow HOST, /network forget HOST", true
	}
}
