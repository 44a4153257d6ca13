package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/lsp"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Run is one session hosted with everything around it: its agent and
// tools, where it is saved, its checkpoints, hooks and personas. Build it
// with Open, start it with Start, end it with Close.
type Run struct {
	spec  Spec
	cfg   config.Config
	agent *agent.Agent
	host  *sessionHost
	sess  *session.Session
	tools *tool.Set
	shell *tool.Confinement
	// iso are the sub-agents' worktree boxes (isolation = "worktree").
	iso isolated
	// titles names the session after its first turn (nil: Spec.Titles off).
	titles *titler
	// lsp is the run's language servers (nil: none found or configured).
	lsp *lsp.Manager
	// checkpoints takes the checkpoints of the session in use (nil: off).
	checkpoints *checkpointer
	// defaultDef is the agent as the config makes it, without a persona.
	defaultDef agent.Definition
	name       string // the persona in use ("" for the default)
	ext        extended
	voice      voice
	// untrustedNet is the project's network file waiting for trust.
	untrustedNet *projectNetwork
	resumed      bool
	// reviewing: plan mode's limits hold for a review (SetReviewing), its
	// words to the model do not.
	reviewing        bool
	planBeforeReview bool
	// boxBeforePlan is the box mode plan mode replaced.
	boxBeforePlan sandbox.Mode
	// jobs are the background commands; they end with the run.
	jobs *tool.Jobs
	// loop runs the turns: the one Driver of every front end.
	loop *Loop
	// onScreen reports to the screen a front end draws (nil: stderr).
	onScreen func(string)
	// findWindow starts the probe for the context window, once, and
	// returns a channel closed when it is known (or known to be unknown);
	// nil when the window was settled without one.
	findWindow func() <-chan struct{}
}

// Open opens the run's session, builds the tools (asking through
// spec.Approver, when there is one) and the agent, and applies the
// persona asked for or the one the resumed session was made with.
func Open(ctx context.Context, spec Spec) (*Run, error) {
	if spec.Listeners == nil {
		spec.Listeners = listener.NewList()
	}
	if spec.Interloper == nil {
		spec.Interloper = control.NewInterloper()
	}
	r := &Run{spec: spec, cfg: spec.Config}
	r.host = newSessionHost(spec)
	cp, err := newCheckpointer(spec, r.host)
	if err != nil {
		return nil, err
	}
	r.checkpoints = cp
	sess, snapshot, err := r.host.open(spec)
	if err != nil {
		return nil, err
	}
	r.sess = sess
	r.resumed = (spec.Continue || spec.Resume != "") && sess.Len() > 1
	if err := r.build(ctx, snapshot); err != nil {
		_ = r.host.close()
		return nil, err
	}
	if cp != nil {
		cp.tools = r.agent.Tools
	}
	r.spec.Listeners.Add(turnSaver{r})
	if spec.Titles {
		r.titles = &titler{run: r}
		r.spec.Listeners.Add(r.titles)
	}
	r.loop = NewLoop(r.spec.Interloper, r.agent.Cancel, func(ctx context.Context, text string) *agent.Turn { return r.NewTurn(ctx, text) })
	r.spec.Listeners.Add(r.loop)
	// A session resumed (at start or with /resume) goes on in the mode it
	// stopped in; a new one starts out of plan mode.
	attached := r.host.attached
	r.host.attached = func(s *session.Session, id string) {
		if attached != nil {
			attached(s, id)
		}
		r.resumePlanning(s)
	}
	r.resumePlanning(sess)
	return r, nil
}

// resumePlanning puts the run in the mode s stopped in; a plan mode that
// cannot start again here is said.
func (r *Run) resumePlanning(s *session.Session) {
	planning := wasPlanning(s.Messages())
	if err := r.SetPlanning(planning); planning && !r.Planning() {
		r.say(fmt.Sprintf("the session was in plan mode, which cannot start here (%v); it goes on out of it", err))
	}
}

// say tells the person something: on the screen once a front end draws
// one (OnScreen), else on Env.Stderr.
func (r *Run) say(text string) {
	if r.onScreen != nil {
		r.onScreen(text)
		return
	}
	fmt.Fprintln(r.spec.Env.Stderr, "chat: "+text)
}

// turnSaver saves the session when a turn of the main agent ends, for
// every front end: what the turn changed that was not an append (healing
// placeholders, an unanswered mark) is written behind it.
type turnSaver struct{ r *Run }

func (t turnSaver) OnEvent(e listener.Event) {
	if done, ok := e.(listener.TurnDone); ok && done.Agent == "" {
		t.r.host.saveBehind(t.r.agent.Session())
	}
}

// build makes the tools, the project's voice and the agent.
func (r *Run) build(ctx context.Context, snapshot json.RawMessage) error {
	spec, ls := r.spec, r.spec.Listeners
	r.jobs = &tool.Jobs{}
	// Every front end hears of the jobs: an editor shows each as its
	// call, live; print mode and the REPL say when one ends.
	r.jobs.Watch(func(e tool.JobEvent) {
		j := e.Job
		ls.Emit(listener.Job{CallID: j.CallID, ID: j.ID, Command: j.Command, State: j.State(), Tail: j.Tail(12), Ended: e.Ended})
	})
	builtins, shell, err := builtinTools(spec.Env, spec.Config, r.jobs)
	if err != nil {
		return err
	}
	r.shell = shell
	if r.voice, err = projectVoice(spec.Env, spec.Config, r.host); err != nil {
		return err
	}
	// Hooks run in the box, as commands do: never, outside, what a boxed
	// command wrote.
	if shell.Boxed() {
		r.voice.hooks.InBox = shell.RunHook
	} else {
		r.voice.boxed = false
	}
	if shell.AsksEveryCommand() {
		fmt.Fprintf(spec.Env.Stderr, "chat: %s\n", shell.Describe())
	}
	// Which box is in force, said once, when the first one has started:
	// before the first command runs (print mode's stderr, --json, the REPL).
	shell.Started = func(s string) { ls.Emit(listener.Notice{Text: s}) }
	// What a job planted in a repository and the guard undid while no
	// call was there to say it.
	shell.Guarded = func(s string) { ls.Warn(s) }
	watchNetwork(shell.Net, ls, spec.Approver)
	if r.untrustedNet, err = applyProjectNetwork(spec.Env.Getenv, spec.Env.Workdir, shell.Net); err != nil {
		return err
	}
	// A job's server, reached from the host: said where it is.
	shell.Forwarded = func(s string) { ls.Emit(listener.Notice{Text: s}) }
	// One set of rules for every agent of the run: the policy (and its
	// "always" grants), who asks, the hooks around each call.
	// The language servers' verdict comes with the result of a call that
	// changed their files, after the person's PostToolUse hooks.
	var hooks tool.CallHooks = r.voice.hooks
	if r.lsp = languageServers(spec.Env, spec.Config, shell, ls); r.lsp != nil {
		hooks = withDiagnostics{CallHooks: r.voice.hooks, lsp: r.lsp, wd: spec.Env.Workdir,
			changed: r.checkpoints.changedSinceCall, tools: func() *tool.Set { return r.tools }, ls: ls}
		r.lsp.Ready = r.offerNavigation()
	}
	rules := tool.Rules{Policy: policyOf(spec.Config), Approver: spec.Approver, Hooks: hooks}
	if spec.Approver != nil && r.voice.hooks.Has("Notification") {
		rules.Approver = notifying{spec.Approver, r.voice.hooks}
	}
	full := rules.Set(builtins...)
	if r.ext, err = extensions(spec, full); err != nil {
		return err
	}
	// Sub-agents may work in worktrees of their own where there is a
	// repository to make them in (the option is not offered elsewhere).
	if r.ext.delegate != nil {
		if _, err := Repository(ctx, spec.Env, spec.Config); err == nil {
			r.ext.delegate.Isolate = r.isolate
		}
	}
	r.tools = full.Without(spec.Config.Tools.SubAgentsOnly...)
	if r.agent, err = r.newAgent(ctx, r.sess); err != nil {
		return err
	}
	// The default agent, before any persona: /agent default goes back to it.
	r.defaultDef = r.agent.Definition(DefaultAgentName)
	r.name, err = r.applyPersona(snapshot)
	return err
}

// Start saves the session from now on (its header carries the agent),
// settles the context window or says how, and runs the SessionStart
// hooks.
func (r *Run) Start(ctx context.Context, probe Probe) {
	r.host.begin(r.sess, r.definitionJSON())
	r.findWindow = contextWindow(ctx, r.cfg, r.agent, probe != ProbeNever)
	if r.findWindow != nil && probe == ProbeAtStart {
		r.findWindow()
	}
	source := "startup"
	if r.sess.Len() > 1 {
		source = "resume"
	}
	r.sessionStart(ctx, source)
	r.host.cleared = func() { r.sessionStart(ctx, "clear") }
}

// AwaitWindow makes the agent wait, up to wait, for the server to say its
// window when a request first needs it (ProbeWhenNeeded).
func (r *Run) AwaitWindow(wait time.Duration) {
	if r.findWindow != nil {
		r.agent.AwaitWindow(r.findWindow, wait)
	}
}

// sessionStart runs the SessionStart hooks; what they print goes with the
// next message.
func (r *Run) sessionStart(ctx context.Context, source string) {
	if !r.voice.hooks.Has("SessionStart") {
		return
	}
	out := r.voice.hooks.Run(ctx, hook.Input{Event: "SessionStart", Source: source})
	r.voice.hooks.Show(out)
	if out.Context != "" {
		r.agent.AddContext("<session-start-hook>\n" + out.Context + "\n</session-start-hook>")
	}
}

// ConnectEager connects the servers configured eager = true and gives
// their tools to the main agent. One that fails says which and why
// through report; the session goes on without it.
func (r *Run) ConnectEager(ctx context.Context, report func(string)) {
	if r.ext.mcp == nil {
		return
	}
	for _, name := range r.ext.mcp.Eager() {
		tools, err := r.ext.mcp.Connect(ctx, name)
		if err != nil {
			if ctx.Err() == nil {
				report(fmt.Sprintf("%v (the session goes on without it)", err))
			}
			continue
		}
		for _, t := range tools {
			r.agent.Tools().Add(t)
		}
	}
}

// Close ends the run: the SessionEnd hooks, the session file, the box,
// the checkpoints of an unsaved session and every MCP server process. Its
// error says the session could not be saved whole (a full disk); it was
// shown on the run's stderr already.
func (r *Run) Close() error {
	if r.voice.hooks.Has("SessionEnd") {
		r.voice.hooks.Show(r.voice.hooks.Run(context.Background(), hook.Input{Event: "SessionEnd", Reason: "exit"}))
	}
	r.titles.stop()
	r.jobs.StopAll() // before the box they run in
	r.lsp.Close()
	saveErr := r.host.close()
	r.shell.Close()
	r.closeIsolated()
	r.checkpoints.close()
	if r.ext.mcp != nil {
		_ = r.ext.mcp.Close()
	}
	return saveErr
}

// Jobs are the run's background commands (/ps, /stop).
func (r *Run) Jobs() *tool.Jobs { return r.jobs }

// Config is the run's resolved configuration.
func (r *Run) Config() config.Config { return r.cfg }

// Workdir is where the run works.
func (r *Run) Workdir() string { return r.spec.Env.Workdir }

// Resumed says the run continues a saved session (--continue, --resume)
// that has turns.
func (r *Run) Resumed() bool { return r.resumed }

// SessionID is the id of the session in use ("" when it is not saved).
func (r *Run) SessionID() string { return r.host.id() }

// Save writes what the last operation changed that was not an append
// (healing placeholders, an edit of the history).
func (r *Run) Save() { r.host.save(r.agent.Session()) }

// SessionStore is the run's session storage, as the REPL's /new,
// /resume and /sessions use it.
type SessionStore interface {
	// Changed saves a change that was not an append (healing, /undo).
	Changed(s *session.Session)
	// Started saves a fresh session from now on (/new).
	Started(s *session.Session)
	List() ([]session.Info, error)
	// Open loads a stored session by id prefix, ready to continue, and
	// says which it is (its id, the folder it was made in).
	Open(prefix string) (*session.Session, session.Info, error)
}

// Sessions is the run's session storage.
func (r *Run) Sessions() SessionStore { return r.host }

// Personas names the agent definitions the run can switch to.
func (r *Run) Personas() []string { return slices.Sorted(maps.Keys(r.ext.defs)) }

// Persona is the persona leading ("" for the config's own agent).
func (r *Run) Persona() string { return r.name }

// Skills are the skills found.
func (r *Run) Skills() []tool.Skill { return r.ext.skills }

// Sandbox says where commands run.
func (r *Run) Sandbox() string { return r.shell.Describe() }

// Network is the box's way out and what it allowed (nil: none).
func (r *Run) Network() *tool.Network {
	if !r.shell.Boxed() {
		return nil
	}
	return r.shell.Net
}

// StartBox starts the box behind the first frame, so its notice says
// which box is in force before anything runs in it.
func (r *Run) StartBox() {
	if r.shell.Boxed() {
		go r.shell.Describe()
	}
}

// SwitchAgent makes the main agent the named persona (DefaultAgentName:
// the config's own), keeping the session.
func (r *Run) SwitchAgent(name string) error {
	if name == DefaultAgentName || name == "" {
		if err := r.agent.Apply(r.defaultDef, r.tools); err != nil {
			return err
		}
		r.name = ""
		return nil
	}
	def, ok := r.ext.defs[name]
	if !ok {
		return fmt.Errorf("no agent named %q; /agent lists them", name)
	}
	if err := mayLead(r.cfg, def); err != nil {
		return err
	}
	if err := r.agent.Apply(def, r.tools); err != nil {
		return err
	}
	r.name = name
	return nil
}

// ToolState is one tool and how it is treated (/tools).
type ToolState struct{ Name, State, Description string }

// ToolStates is each tool the agent has and whether it asks.
func (r *Run) ToolStates() []ToolState {
	var out []ToolState
	for _, t := range r.agent.Tools().All() {
		state := r.tools.Policy().StateOf(t)
		if _, shell := t.(tool.RunShell); shell {
			state = r.shell.State(r.tools.Policy())
		}
		out = append(out, ToolState{Name: t.Name(), State: state, Description: t.Description()})
	}
	return out
}

// MCPState is one MCP server and its state (/mcp).
type MCPState struct {
	Name, Transport, Status string
	Tools                   []string
	Prompts                 []MCPPrompt
	Resources               []MCPResource
	Login                   string // an HTTP server's OAuth login ("-": none to have)
}

// MCPStates lists the MCP servers (nil without any).
func (r *Run) MCPStates() []MCPState {
	if r.ext.mcp == nil {
		return nil
	}
	return r.MCP().States()
}

// HasMCP says the run has MCP servers configured.
func (r *Run) HasMCP() bool { return r.ext.mcp != nil }

// Price prices a model's usage, as PriceOf does for the run's config.
func (r *Run) Price() func(model string, u session.Usage) (float64, bool) { return PriceOf(r.cfg) }

// PriceSource says where model's price comes from.
func (r *Run) PriceSource(model string) string { return PriceSource(r.cfg, model) }

// Models lists the server's models.
func (r *Run) Models(ctx context.Context) ([]string, error) {
	return Client(r.cfg, r.agent.Model()).Models(ctx)
}

// Files lists the paths under the working directory for @ mentions,
// depth levels down (0: all).
func (r *Run) Files(depth int) ([]string, error) {
	return tool.ProjectFiles(r.spec.Env.Workdir, maxMentionFiles, depth)
}

// maxMentionFiles bounds the paths @ completion offers.
const maxMentionFiles = 100_000

// Draft is the question a resumed session ends with, unanswered (chat
// stopped before it was answered): it goes back into the input.
func (r *Run) Draft() string {
	msgs := r.agent.Session().Messages()
	if n := len(msgs); r.resumed && n > 0 && msgs[n-1].Role == session.RoleUser && msgs[n-1].Unanswered {
		return msgs[n-1].Content
	}
	return ""
}

// definitionJSON is the agent's definition for a session header.
func (r *Run) definitionJSON() json.RawMessage {
	name := r.name
	if name == "" {
		name = DefaultAgentName
	}
	b, err := json.Marshal(r.agent.Definition(name))
	if err != nil {
		return nil
	}
	return b
}
