package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// ErrEmptyInput is a Run with nothing to say.
var ErrEmptyInput = errors.New("empty message")

// ErrNothingToResume is a Resume on a history that has no pending work.
var ErrNothingToResume = errors.New("nothing to resume: the last message is already an answer")

// Options wires an agent. Client is required; everything else has a default.
type Options struct {
	ID     string // "" for the main agent
	Depth  int    // 0 for the main agent, 1 for its sub-agents, …
	Client *llm.Client
	Model  string // "" uses the client's model
	// System is the system prompt put at the head of a new, empty session.
	System string
	// Project is the project's instructions (AGENTS.md), put after System
	// whatever persona replaces it; sub-agents get them too.
	Project string
	// Adverts are blocks the extensions add to the system prompt
	// (<available_agents>, <available_skills>, <available_mcps>), each
	// while its tool is in the agent's set.
	Adverts     []Advert
	Session     *session.Session
	Tools       *tool.Set
	Listeners   *listener.List
	StepLimit   *control.StepLimit // nil: unlimited
	Cancellable *control.Cancellable
	Interloper  *control.Interloper // nil: no mid-turn input
	NoStream    bool
	Temperature *float32
	TopP        *float32
	MaxTokens   int
	// Schema asks the model for a final answer matching this JSON Schema.
	Schema json.RawMessage
	// Hooks are the person's commands at points of a turn (nil: none).
	Hooks *hook.Runner
	// CompactAt is the share of the context window past which the history
	// is compacted before a request: nil means DefaultCompactAt, 0 never
	// (a server's overflow error still compacts once), as compact_at in
	// the config.
	CompactAt *float64
	// Price is what a completion of model costs (ok false: not known);
	// nil prices nothing.
	Price func(model string, u session.Usage) (usd float64, ok bool)
	// Spend is the turn's budget of tokens and money (nil: unlimited),
	// shared with sub-agents.
	Spend *control.Spend
	// NoRescue reports, per model, that tool calls written as text are
	// left as text (nil: they are rescued for every model).
	NoRescue func(model string) bool
	// SmallModel, when set, writes the compaction summaries and the
	// answer synthesized when the budget runs out (the model otherwise).
	SmallModel string
	// Ending, when set, is called as a turn of this agent ends, just
	// before its TurnDone: what the host adds to the turn's end (the
	// language servers' verdict on the files it touched).
	Ending func(listener.Origin)
}

// Result is the outcome of a turn.
type Result struct {
	Content           string // the final answer (the synthesizer's when it answered)
	Interrupted       bool
	InterruptReason   string
	HealedToolCallIDs []string // calls filled with the interrupted placeholder
	Synthesized       bool
	Usage             session.Usage // all completions of the turn, synthesizer included
	// Unanswered are the person's messages the turn ended without
	// answering (an error, a cancel before any text): they stay in history,
	// marked, and are not sent again unless the person re-sends them.
	Unanswered []session.Message
}

// Agent runs turns on one session. Turns do not overlap: a second Run waits
// for the first.
type Agent struct {
	o     Options
	runMu sync.Mutex
	turns atomic.Uint64
	// callerTurn is the turn a sub-agent works in (0 for a main agent):
	// set once by the caller before it runs.
	callerTurn uint64
	// cfgMu guards what the host may change between turns (model,
	// session, system prompt) against a turn reading it.
	cfgMu sync.Mutex
	// cancelUpTo is the newest turn a Cancel was meant for: a turn
	// numbered before the Cancel but not yet armed is cancelled as it arms.
	// turnModel is the model a turn asked for by NewTurnWith, by turn
	// (guarded by cfgMu).
	turnModel    map[uint64]string
	cancelMu     sync.Mutex
	cancelUpTo   uint64
	cancelReason string
	// window is the model's context size (0: unknown); mark is what the
	// server counted last (guarded by cfgMu).
	window atomic.Int64
	mark   sizeMark
	// windowSearch finds the window when first needed; until it has, a
	// request that may need compacting waits for it (guarded by cfgMu;
	// nil once waited for).
	windowSearch *windowSearch
	// context waits to go with the next message (guarded by cfgMu).
	context string
}

// New returns an agent for o.
func New(o Options) *Agent {
	if o.Session == nil {
		o.Session = session.New()
	}
	if p := systemPrompt(o.System, o.Project, o.Adverts, o.Tools); p != "" && o.Session.Len() == 0 {
		o.Session.AppendInput(session.System(p))
	}
	if o.Listeners == nil {
		o.Listeners = listener.NewList()
	}
	if o.Cancellable == nil {
		o.Cancellable = control.NewCancellable()
	}
	if o.Tools == nil {
		o.Tools = tool.NewSet()
	}
	if o.Model == "" && o.Client != nil {
		o.Model = o.Client.Model()
	}
	return &Agent{o: o}
}

// Session is the agent's history.
func (a *Agent) Session() *session.Session {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return a.o.Session
}

// Model is the model the next turn uses.
func (a *Agent) Model() string {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return a.o.Model
}

// SetContextWindow records the model's context size and tells the
// listeners (ContextCap). The host finds it (it may take a network probe)
// and calls this once it knows.
func (a *Agent) SetContextWindow(tokens int) {
	if tokens <= 0 {
		return
	}
	a.window.Store(int64(tokens))
	a.o.Listeners.Emit(listener.ContextCap{Origin: listener.Origin{Agent: a.o.Listeners.ID(), Turn: a.turns.Load()}, Tokens: tokens})
}

// windowSearch is how the host finds the window (see AwaitWindow).
type windowSearch struct {
	settle func() <-chan struct{}
	atMost time.Duration
}

// AwaitWindow tells the agent how the window is found: settle starts the
// search (a probe of the server, say) at its first call and returns a
// channel closed once the window is settled or the search gave up; later
// calls return the same channel (the host may have started the search
// itself). The agent calls it when a request that may need compacting, a
// tool result to fit, a refusal as too large or a synthesized answer first
// needs the window, and waits for it at most atMost. The first request of a fresh session has
// nothing to compact and goes at once, so a turn that needs none of these
// (a one-line answer) costs no probe at all.
func (a *Agent) AwaitWindow(settle func() <-chan struct{}, atMost time.Duration) {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	a.windowSearch = &windowSearch{settle: settle, atMost: atMost}
}

func (a *Agent) windowIsPending() bool {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return a.windowSearch != nil
}

// awaitWindow starts the window search (see AwaitWindow) and waits until
// the window is settled, the wait is over or ctx ends; later calls return
// at once.
func (a *Agent) awaitWindow(ctx context.Context) {
	a.cfgMu.Lock()
	search := a.windowSearch
	a.cfgMu.Unlock()
	if search == nil {
		return
	}
	timer := time.NewTimer(search.atMost)
	defer timer.Stop()
	select {
	case <-search.settle():
	case <-timer.C:
	case <-ctx.Done():
		return // cancelled: the next turn waits again
	}
	a.cfgMu.Lock()
	if a.windowSearch == search {
		a.windowSearch = nil
	}
	a.cfgMu.Unlock()
}

// Tools is the agent's current tool set.
func (a *Agent) Tools() *tool.Set {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return a.o.Tools
}

// StepLimit is the agent's budget control (nil: unlimited).
func (a *Agent) StepLimit() *control.StepLimit { return a.o.StepLimit }

// SetModel switches the model from the next completion on.
func (a *Agent) SetModel(name string) {
	a.cfgMu.Lock()
	a.o.Model = name
	a.cfgMu.Unlock()
}

// NewSession starts over with an empty history (and the system prompt).
// Call it between turns.
func (a *Agent) NewSession() *session.Session {
	s := session.New()
	if p := systemPrompt(a.o.System, a.o.Project, a.o.Adverts, a.o.Tools); p != "" {
		s.AppendInput(session.System(p))
	}
	a.cfgMu.Lock()
	a.o.Session = s
	a.context = "" // what waited was for the old conversation
	a.cfgMu.Unlock()
	return s
}

// SetSession switches to another history (a resumed one). Call it between
// turns.
func (a *Agent) SetSession(s *session.Session) {
	a.cfgMu.Lock()
	a.o.Session = s
	a.cfgMu.Unlock()
}

// Apply makes the agent the one def describes: model (when set),
// instructions, options, step budget, tools (resolved among available)
// and output schema. Call it between turns.
func (a *Agent) Apply(def Definition, available *tool.Set) error {
	tools, err := def.ToolSet(available)
	if err != nil {
		return err
	}
	a.cfgMu.Lock()
	if def.Model != "" {
		a.o.Model = def.Model
	}
	a.o.Tools = tools
	a.o.Temperature, a.o.TopP, a.o.MaxTokens = def.Options.Temperature, def.Options.TopP, def.Options.MaxTokens
	a.o.Schema = def.StructuredOutput
	a.cfgMu.Unlock()
	if a.o.StepLimit != nil {
		a.o.StepLimit.SetMax(def.MaxSteps.Max())
	}
	instructions := def.Instructions
	if instructions == "" {
		a.cfgMu.Lock()
		instructions = a.o.System
		a.cfgMu.Unlock()
	}
	a.SetSystem(instructions) // also when only the tools changed: the adverts follow them
	return nil
}

// SetSchema asks for final answers matching a JSON Schema (nil: free text).
func (a *Agent) SetSchema(schema json.RawMessage) {
	a.cfgMu.Lock()
	a.o.Schema = schema
	a.cfgMu.Unlock()
}

// Schema is the JSON Schema final answers must match, if any.
func (a *Agent) Schema() json.RawMessage {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	return a.o.Schema
}

// Definition describes the agent as it is now, as plain data.
func (a *Agent) Definition(identifier string) Definition {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	d := Definition{Identifier: identifier, Model: a.o.Model, Instructions: a.o.System, Tools: Describe(a.o.Tools.All()),
		Options: ModelOptions{Temperature: a.o.Temperature, TopP: a.o.TopP, MaxTokens: a.o.MaxTokens}, StructuredOutput: a.o.Schema}
	d.MaxSteps = steps.Budget(a.o.StepLimit.Max())
	return d
}

// SetSystem replaces the system prompt of this and later sessions.
func (a *Agent) SetSystem(text string) {
	a.cfgMu.Lock()
	a.o.System = text
	s, project, adverts, tools := a.o.Session, a.o.Project, a.o.Adverts, a.o.Tools
	a.cfgMu.Unlock()
	s.SetSystem(systemPrompt(text, project, adverts, tools))
}

// Advert is a block an extension adds to the system prompt while the
// agent has its tool.
type Advert struct {
	Tool, Text string
}

// systemPrompt is the instructions, the project's instructions, and the
// blocks of the extensions whose tools are in the set.
func systemPrompt(instructions, project string, adverts []Advert, tools *tool.Set) string {
	parts := []string{}
	for _, p := range []string{instructions, project} {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	for _, a := range adverts {
		if _, ok := tools.Lookup(a.Tool); ok && strings.TrimSpace(a.Text) != "" {
			parts = append(parts, a.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Listeners is the list the agent emits to.
func (a *Agent) Listeners() *listener.List { return a.o.Listeners }

// Cancel stops the running turn, and a numbered one that has not started
// yet (from any goroutine); reason is reported in the Result and the
// Cancelled event.
func (a *Agent) Cancel(reason string) {
	a.cancelMu.Lock()
	a.cancelUpTo, a.cancelReason = a.turns.Load(), reason
	a.cancelMu.Unlock()
	a.o.Cancellable.Cancel(reason)
}

// nextTurn hands out the identity of a new turn: the only place one is
// made. A sub-agent's turn is its caller's.
func (a *Agent) nextTurn() uint64 {
	if a.callerTurn != 0 {
		a.turns.Store(a.callerTurn)
		return a.callerTurn
	}
	return a.turns.Add(1)
}

// Outcome is how a turn ended.
type Outcome struct {
	Turn   uint64
	Result Result
	Err    error
}

// Turn is a turn that has its number but has not run yet: every event it
// emits will carry ID in its Origin, so a host can tell its events (and
// its approval requests) from those of an earlier, cancelled turn before
// any arrives.
type Turn struct {
	ID  uint64
	run func() Outcome
}

// Run runs the turn and returns how it ended. It waits for a running turn
// to end first: turns never overlap.
func (t *Turn) Run() Outcome { return t.run() }

// NewTurn numbers a turn for one user message. A Cancel after NewTurn
// returns cancels it, even before it runs.
func (a *Agent) NewTurn(ctx context.Context, text string, files ...session.FilePart) *Turn {
	return a.NewTurnWith(ctx, "", text, files...)
}

// NewTurnWith is NewTurn whose requests name model ("": the agent's): a
// prompt file's front matter may ask for one for its turn.
func (a *Agent) NewTurnWith(ctx context.Context, model, text string, files ...session.FilePart) *Turn {
	id := a.nextTurn()
	if model != "" {
		a.cfgMu.Lock()
		if a.turnModel == nil {
			a.turnModel = map[uint64]string{}
		}
		a.turnModel[id] = model
		a.cfgMu.Unlock()
	}
	return &Turn{ID: id, run: func() Outcome {
		a.runMu.Lock()
		defer a.runMu.Unlock()
		a.arm(ctx, id)
		res, err := a.run(ctx, id, text, files)
		return Outcome{Turn: id, Result: res, Err: err}
	}}
}

// Start runs a new turn in the background: its id at once, its outcome
// on the channel.
func (a *Agent) Start(ctx context.Context, text string, files ...session.FilePart) (uint64, <-chan Outcome) {
	t := a.NewTurn(ctx, text, files...)
	done := make(chan Outcome, 1)
	go func() { done <- t.Run() }()
	return t.ID, done
}

// Run takes one user message through the loop and waits for the outcome.
func (a *Agent) Run(ctx context.Context, text string, files ...session.FilePart) (Result, error) {
	o := a.NewTurn(ctx, text, files...).Run()
	return o.Result, o.Err
}

func (a *Agent) run(ctx context.Context, id uint64, text string, files []session.FilePart) (Result, error) {
	if strings.TrimSpace(text) == "" && len(files) == 0 {
		return Result{}, ErrEmptyInput
	}
	return a.turn(ctx, id, func(t *turn) error {
		t.request = text
		// Calls left pending by an earlier turn or process (the resume
		// boundary) run first: their results must precede a new message.
		if pending := t.answerStarted(t.sess.PendingCalls()); len(pending) > 0 {
			if err := t.runTools(pending); err != nil {
				return err
			}
		}
		m, err := t.userMessage(text, files)
		if err != nil {
			return err
		}
		t.appendUser(m, false)
		return t.loop()
	})
}

// Resume continues a session without a new user message: the pending tool
// calls of the resume boundary run first, then the loop goes on. A session
// that ends in a user message simply gets its answer.
func (a *Agent) Resume(ctx context.Context) (Result, error) {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	id := a.nextTurn()
	a.arm(ctx, id)
	return a.turn(ctx, id, func(t *turn) error {
		msgs := t.sess.Messages()
		t.request = lastUserText(msgs)
		if pending := session.PendingCalls(msgs); len(pending) > 0 {
			if err := t.runTools(t.answerStarted(pending)); err != nil {
				return err
			}
			t.drainInterloper()
			return t.loop()
		}
		if len(msgs) == 0 || msgs[len(msgs)-1].Role != session.RoleUser {
			return ErrNothingToResume
		}
		return t.loop()
	})
}

// arm readies the controls for turn id. The turn's context derives from
// the caller's: cancelling ctx cancels the turn, with ctx's cause as the
// reason. A Cancel that came after the turn was numbered applies to it.
func (a *Agent) arm(ctx context.Context, id uint64) {
	a.o.StepLimit.Reset()
	if a.o.Depth == 0 { // a sub-agent spends its caller's turn's budget
		a.o.Spend.Reset()
	}
	a.o.Cancellable.Start(ctx)
	a.cancelMu.Lock()
	cancelled, reason := id <= a.cancelUpTo, a.cancelReason
	a.cancelMu.Unlock()
	if cancelled {
		a.o.Cancellable.Cancel(reason)
	}
}

// turn runs body as turn id; the caller holds runMu and armed the controls.
func (a *Agent) turn(ctx context.Context, id uint64, body func(*turn) error) (Result, error) {
	a.cfgMu.Lock()
	t := &turn{a: a, sess: a.o.Session, model: a.o.Model, tools: a.o.Tools, origin: listener.Origin{Agent: a.o.Listeners.ID(), Turn: id}}
	if m, ok := a.turnModel[id]; ok {
		t.model = m
		delete(a.turnModel, id)
	}
	a.cfgMu.Unlock()
	err := body(t)
	if err != nil && !errors.Is(err, ErrNothingToResume) {
		if err = t.end(err); err != nil {
			t.result.Unanswered = t.sess.MarkUnanswered()
		}
	}
	if a.o.Ending != nil {
		a.o.Ending(t.origin)
	}
	a.o.Listeners.Emit(listener.TurnDone{Origin: t.origin})
	return t.result, err
}

func lastUserText(msgs []session.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}
