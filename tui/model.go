package tui

import (
	"context"
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"io"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// Options wires the TUI to the run it drives and to the terminal.
type Options struct {
	// App is the run (app.Run is chat's): the agent and its controls, the
	// session and its edits, and what the slash commands list.
	App App
	// Approvals, when the run's tools ask through it, is connected to the
	// program by Run.
	Approvals *Approvals
	// Notify says when and how the person is told it is their turn.
	Notify Notify
	// Getenv reads the desktop's variables (WAYLAND_DISPLAY, DISPLAY …;
	// nil: the process's).
	Getenv func(string) string
	// StatusLine, when its Command is set, is the person's own status line.
	StatusLine StatusLine
	// Listening, when set, runs once the program receives the agent's
	// events: what reports through them from then on reaches the screen
	// (a notice emitted before is dropped, no listener being there yet).
	Listening func()
	// Share puts this session on a web page steered through d (/serve)
	// and returns its address; nil: /serve is not offered. ShareAtStart
	// shares it as the REPL starts (chat --serve).
	Share        func() (url string, err error)
	ShareAtStart bool
	// HistoryPath is where input history persists ("" keeps it in memory).
	HistoryPath string
	Fullscreen  bool
	NoColor     bool
	// Dark forces the palette; nil asks the terminal for its background.
	Dark *bool
	// Now is the clock (tests fix it).
	Now func() time.Time
	// Input and Output are the terminal (nil: stdin and stdout).
	Input  io.Reader
	Output io.Writer
	// Moved, when set, takes /worktree NAME's folder: the REPL ends, and
	// its caller opens the session there (report says where it went).
	// Nil: /worktree NAME is refused.
	Moved func(dir, report string)
}

// App is what the REPL drives: everything it does to the session, the
// tools and the files goes through it. app.Run is chat's; the TUI never
// edits a session itself.
type App interface {
	// The main agent, as the REPL drives it (app.Run's).
	Model() string
	SetModel(name string)
	StepLimit() *control.StepLimit
	ContextWindow() int
	ContextSize() int
	ContextReport() app.ContextParts
	AddContext(text string)
	Session() *session.Session
	NewSession() *session.Session
	SetSession(s *session.Session)
	SetSystem(text string)
	Compact(ctx context.Context, instructions string) *app.Turn
	Cancel(reason string)
	// Loop is the run's turn loop: what is sent while a turn runs goes
	// on its pending list.
	Loop() *app.Loop
	// NewTurn is a turn of the agent on text, as the run sends it (in
	// plan mode with what plan mode asks of the model).
	NewTurn(ctx context.Context, text string, files ...session.FilePart) *app.Turn
	// Planning and SetPlanning are plan mode: nothing is written before
	// the person says go; SetPlanning's error says what does not work here
	// (the mode is set all the same).
	Planning() bool
	SetPlanning(on bool) error
	// Jobs are the background commands (/ps, /stop).
	Jobs() *tool.Jobs
	// Edits makes the person's edits of the history (/undo, /retry, an
	// edited message, /continue) and saves them.
	Edits() *app.Edits
	// Sessions switches sessions (nil: no /new, /resume or /sessions).
	Sessions() SessionHost
	// Resumed: the session was continued (--continue, --resume): show
	// where it stopped. Draft is put in the input at start: a question
	// that got no answer before chat stopped.
	Resumed() bool
	Draft() string
	// Models lists the server's models for /models.
	Models(ctx context.Context) ([]string, error)
	// Personas name the agent definitions /agent can switch to; Persona
	// is the one leading ("": none).
	Personas() []string
	Persona() string
	SwitchAgent(name string) error
	// ToolStates lists the tools and how each is treated, Sandbox where
	// commands run (/tools).
	ToolStates() []ToolState
	Sandbox() string
	// Network is the box's way out (/network; nil: none).
	Network() *tool.Network
	Skills() []tool.Skill
	// MCPStates lists the MCP servers (nil: none configured); MCP is
	// their prompts, resources and questions (nil: none configured).
	MCPStates() []MCPState
	MCP() *app.MCP
	// HookList is /hooks ("": none).
	HookList() string
	// DiagnosticsReport is the language servers' current errors and
	// warnings (/diagnostics).
	DiagnosticsReport() string
	// Worktree is /worktree: a report, and for /worktree NAME the folder
	// of that worktree (made when it is not there).
	Worktree(ctx context.Context, args string) (report, enter string, err error)
	// A review of the changes (/review): its request, and its limits.
	ReviewRequest(ctx context.Context, base string) (text string, files int, err error)
	SetReviewing(on bool) error
	// StatusFacts are what the person's status line command is told of the run.
	StatusFacts() app.StatusFacts
	// Prompt files as /NAME commands.
	PromptFiles() (cmds, shadowed []app.PromptFile, problems []string)
	PromptCommand(line string, reserved func(string) bool) (app.PromptFile, string, bool)
	RunPromptFile(ctx context.Context, ask app.IdleAsker, c app.PromptFile, args string) (string, error)
	NewTurnWith(ctx context.Context, model, text string, files ...session.FilePart) *app.Turn
	// ProjectFiles names the project's instructions files (/context).
	ProjectFiles() []string
	// Price is what usage of a model costs (nil prices nothing);
	// PriceSource says where a model's price comes from.
	Price() func(model string, u session.Usage) (usd float64, ok bool)
	PriceSource(model string) string
	// Rewinder takes back what the agent did (nil: checkpoints are off).
	Rewinder() Rewinder
	// Workdir is where mentioned paths are found and ! commands run (""
	// : no @ completion, no !); Files lists the paths under it, depth
	// levels down (0: all); PersonShell runs the person's own ! command
	// there, as them, output to out as it comes.
	Workdir() string
	Files(depth int) ([]string, error)
	PersonShell(ctx context.Context, command string, out io.Writer) (int, error)
}

// MCPState is one server in /mcp.
type MCPState = app.MCPState

// ToolState is one line of /tools.
type ToolState = app.ToolState

// Rewinder takes back what the agent did, for /rewind. Both methods do
// IO: the TUI calls them from a command.
type Rewinder = app.Rewinder

// SessionHost is what the TUI needs of session storage.
type SessionHost = app.SessionStore

// streamState is how the running completion is being shown.
type streamState struct {
	toolOut   string // the last lines a running tool (or ! command) printed
	liveCache struct {
		text, style, out string
		width            int
	}
	sanitizer listener.Sanitizer
	streamed  bool // the current completion streamed text
	// thoughtShown: its thinking was printed when the answer began.
	thoughtShown bool
	// verdicts are the language servers' words on a call's files, by call
	// id, said under its result (which comes after them).
	verdicts map[string]listener.Diagnostics
}

// usageState is what the status bar and /cost count: tokens and cost of
// the session and the turn, the next request's size, the window's fill.
type usageState struct {
	spent, turnSpent spent
	// byModel is the session's spending by the model that answered, in
	// the order models first answered (models).
	byModel map[string]*spent
	models  []string
	// nextBase is the size of the next request before the input (keyed by
	// the history's length and the model), for the estimate as one types.
	nextBase struct {
		key    string
		tokens int
	}
	contextUsed int // the last request's prompt and answer
}

// liveTurn is what the running completion has streamed so far.
type liveTurn struct {
	text     string // answer text not yet printed (the unstable tail)
	thinking string
	state    string // streaming, thinking, running tool, retrying …
	retry    string // the last failed attempt, shown until the turn goes on
	// paraBreak: the last printed part of the answer ended a paragraph.
	paraBreak bool
}

// Model is the root Bubble Tea model.
type Model struct {
	opts Options
	ctx  context.Context // the program's: turns derive theirs from it
	st   styles
	md   markdown
	now  func() time.Time

	width, height int
	dark          bool

	// The running turn. turn is the id the agent gives it (they count up
	// from 1 per agent, and only this model starts turns); events of a turn
	// at or below ignoreUpTo were cancelled and are dropped.
	busy       bool
	turn       uint64
	ignoreUpTo uint64
	started    time.Time
	steps      int
	live       liveTurn
	stream     streamState
	bang       *bangRun // the person's ! command, while it runs
	mention    mentions // the @ completion list
	// confirmOutside is a message whose @mention outside the working
	// directory was pointed out: sent again unchanged, it is attached.
	confirmOutside string

	// lastTyped is when the person last typed into the input: while they
	// type (or the input holds text) an approval prompt waits and takes
	// no keys.
	lastTyped time.Time
	// agentName is the persona in use, "" for the default agent.
	agentName string

	usage           usageState // what the status bar counts
	lastAnswer      string
	lastSynthesized bool
	lastUser        string

	loop        *app.Loop          // the turns, and what was sent while one runs
	attachments []session.FilePart // for the next message (/attach)
	input       input
	spin        spinner.Model
	details     bool // ctrl+o: thinking and tool output in full
	// collapsed is the last tool result printed collapsed: ctrl+o prints
	// it in full (what is in the scrollback cannot be redrawn).
	collapsed  *listener.ToolResult
	notice     string
	quitArm    time.Time // first ctrl+c at idle on an empty input
	lastEsc    time.Time
	editing    string // id of the user message being edited (Esc Esc)
	picker     *picker
	app        App // the run the REPL drives
	notify     notifier
	statusLine statusLine
	reviewing  bool // the turn running is a review (/review)
	// promptFiles are the prompt files as commands, read at (at).
	promptFiles struct {
		list []command
		at   time.Time
	}
	plan     taskList // the agent's task list
	planTurn bool     // the running turn plans (plan mode)
	planEdit bool     // the editor holds the plan: saved, it is carried out
	follow   int      // the background job followed live (/ps N; 0: none)
	price    func(model string, u session.Usage) (float64, bool)
	edits    *app.Edits // the history edits, saved by the application layer
	asking   *asking    // a tool waits for approval
	form     *form      // an MCP server's question (elicitation) on screen
	// promptAsk is a /SERVER:PROMPT waiting for the arguments it needs,
	// typed one by one.
	promptAsk *promptAsk
	// mcpConnecting are the servers connecting for a completion list.
	mcpConnecting map[string]bool

	// Inline output: blocks wait in outbox and are printed one batch at a
	// time, so they reach the scrollback in order.
	outbox []string
	// interrupted are the calls a resumed session stopped in the middle
	// of: said at the resume, so the placeholder answer they get at the
	// next turn's start is not drawn under the person's new message.
	interrupted map[string]bool
	// queuedEdit: the input holds a queued message taken out with ↑, which
	// ctrl+x deletes.
	queuedEdit bool
	turnHint   string       // a notice that holds only while the turn runs
	frames     frameHeights // the heights of the recent views, for printing
	frame      frameCache
	// cutOff: the last answer ended at finish_reason "length"; said at
	// its Usage.
	cutOff   bool
	printing bool
	drawn    drawnWait // a print waiting for a frame to be drawn
	// drawnTimeout is drawnTimeout (frames.go); a test's stalled
	// renderer outwaits any clock.
	drawnTimeout time.Duration
	// Fullscreen keeps the printed blocks for its viewport.
	scroll fullscreen
}

// New returns the root model.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	a := o.App
	m := &Model{opts: o, app: a, ctx: context.Background(), now: o.Now, width: 80, height: 24, dark: true, drawnTimeout: drawnTimeout,
		loop: a.Loop(), edits: a.Edits(), price: a.Price(), notify: notifier{Notify: o.Notify}, statusLine: statusLine{StatusLine: o.StatusLine}}
	if o.Dark != nil {
		m.dark = *o.Dark
	}
	m.restyle()
	m.input = newInput(o.HistoryPath)
	m.input.focus() // focused from the start; Init starts the blink
	m.spin = spinner.New(spinner.WithSpinner(spinner.Dot))
	m.scroll = newFullscreen()
	if s := a.Session(); s != nil {
		m.usage.contextUsed = contextOf(s.Messages()) // a resumed session
	}
	if d := a.Draft(); d != "" {
		m.input.set(d)
	}
	if p := a.Persona(); p != app.DefaultAgentName {
		m.agentName = p
	}
	return m
}

func (m *Model) restyle() {
	m.st = newStyles(m.dark, m.opts.NoColor)
	switch {
	case m.opts.NoColor:
		m.md.setStyle("notty")
	case m.dark:
		m.md.setStyle("dark")
	default:
		m.md.setStyle("light")
	}
	m.input.restyle(m.st)
}

// Init asks the terminal for its background (to pick the palette).
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{textarea.Blink}
	if m.app.Resumed() && m.app.Session() != nil {
		cmds = append(cmds, func() tea.Msg { return showResumedMsg{} })
	}
	if m.opts.Dark == nil && !m.opts.NoColor {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.opts.ShareAtStart {
		cmds = append(cmds, m.share())
	}
	if m.statusLine.Command != "" {
		cmds = append(cmds, func() tea.Msg { return statusTickMsg{} })
	}
	return tea.Batch(cmds...)
}

// belowApproval is the part of the live region under an approval prompt:
// the pending list, notices, attachments, pickers, the input and the
// status bar.
func (m *Model) belowApproval() string {
	var parts []string
	if f := followView(&m.st, m.width, m.app.Jobs(), m.follow); f != "" {
		parts = append(parts, f)
	}
	if p := m.plan.live(&m.st, m.width, m.busy); p != "" {
		parts = append(parts, p)
	}
	if p := pendingView(&m.st, m.width, m.loop.Pending()); p != "" {
		parts = append(parts, p)
	}
	if m.notice != "" {
		// Wrapped, not cut: a notice says what to do next (three lines
		// at most).
		lines := strings.Split(wrap(m.notice, max(m.width, 20)), "\n")
		if len(lines) > 3 {
			lines = append(lines[:2], truncateWidth(strings.Join(lines[2:], " "), m.width))
		}
		parts = append(parts, m.st.hint.Render(strings.Join(lines, "\n")))
	}
	if len(m.attachments) > 0 {
		parts = append(parts, m.st.after.Render(truncateWidth(attachmentList(m.attachments), m.width)))
	}
	if p := m.picker.view(&m.st, m.width, m.now()); p != "" {
		parts = append(parts, p)
	}
	if c := completionView(&m.st, m.input.value(), m.allCommands()); c != "" {
		parts = append(parts, c)
	}
	parts = append(parts, m.input.view(m.width))
	if l := m.mention.view(&m.st, m.width, m.input.value()); l != "" {
		parts = append(parts, l)
	}
	parts = append(parts, m.statusView())
	return m.frame.join(parts)
}

// View draws the live region: the streaming turn, the pending list, the
// input and the status bar (in fullscreen, the transcript above them).
func (m *Model) View() tea.View {
	content := m.liveRegion()
	m.frames.add(m.frame.lines(content), m.height)
	if m.opts.Fullscreen {
		content = m.scroll.view(m.width, m.height-lineCount(content), m.st) + "\n" + content
	}
	v := tea.NewView(content)
	v.AltScreen = m.opts.Fullscreen
	// The terminal says when it gains and loses focus (mode 1004): a
	// person looking at it is not sent a notification.
	v.ReportFocus = m.notify.Method != "off" && len(m.notify.When) > 0
	if m.opts.Fullscreen {
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// liveRegion is what is redrawn each frame: the streaming turn, an
// approval prompt, the pending list, the input and the status bar (in
// fullscreen, the transcript takes the rows above it).
//
// It is never taller than the window: a renderer asked to redraw more
// rows than the screen has garbles it. The tail of the streaming answer
// gets the rows left; what is above them is printed whole when its block
// completes.
func (m *Model) liveRegion() string {
	content := m.belowApproval()
	if a := m.asking.view(&m.st, m.width, m.height, lineCount(content), m.asking != nil && !m.promptTakesKeys(m.now())); a != "" {
		content = a + "\n" + content
	}
	if f := m.form.view(&m.st, m.width, m.height); f != "" {
		content = f + "\n" + content
	}
	rows := m.height - 1 // a frame as tall as the screen scrolls its top row away
	if live := m.liveView(); live != "" {
		if room := rows - lineCount(content); m.height <= 0 || room >= lineCount(live) {
			content = live + "\n" + content
		} else if room > 0 {
			content = lastLinesOf(live, room) + "\n" + content
		}
	}
	if m.height > 0 && !m.opts.Fullscreen {
		content = m.frame.lastLines(content, rows)
	}
	return content
}

// liveView renders what the running completion shows: the tail of the
// answer (re-rendered each frame, it is only the part after the last
// printed paragraph), or the last lines of its thinking.
func (m *Model) liveView() string {
	if m.bang != nil {
		return m.blocks().toolOut(m.stream.toolOut) // a running ! command: its last lines
	}
	if !m.busy {
		return ""
	}
	if m.live.text != "" {
		// View runs after every message (keys, spinner ticks): render the
		// tail again only when it changed.
		if c := &m.stream.liveCache; c.text != m.live.text || c.width != m.width || c.style != m.md.style {
			c.text, c.width, c.style, c.out = m.live.text, m.width, m.md.style, trimBlankLines(m.md.render(m.live.text, m.width))
		}
		if m.live.paraBreak && m.stream.liveCache.out != "" {
			return "\n" + m.stream.liveCache.out // the blank line that ends the printed paragraph
		}
		return m.stream.liveCache.out
	}
	if m.stream.toolOut != "" {
		return m.blocks().toolOut(m.stream.toolOut)
	}
	if m.live.retry != "" && m.live.thinking == "" {
		return m.st.hint.Render(truncateWidth(m.live.retry, m.width))
	}
	if m.live.thinking != "" {
		lines := strings.Split(strings.TrimSpace(wrap(m.live.thinking, m.width-2)), "\n")
		if len(lines) > 3 {
			lines = lines[len(lines)-3:]
		}
		return m.st.thinking.Render("✻ " + strings.Join(lines, "\n  "))
	}
	return ""
}

func lineCount(s string) int { return strings.Count(s, "\n") + 1 }

// lastLinesOf keeps the last n lines of s.

func lastLinesOf(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for k := 0; k < n; k++ {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}
