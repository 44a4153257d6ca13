package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// DelegateName is the name the model calls the sub-agent tool by.
const DelegateName = "agent"

// DefaultMaxDepth bounds nesting: the main agent is depth 0, its
// sub-agents 1, theirs 2; an agent at the bound cannot delegate.
const DefaultMaxDepth = 2

// delegateTimeout bounds one delegated task (the sub-agent's own step
// budget usually ends it well before).
const delegateTimeout = 30 * time.Minute

// Delegate is the `agent` tool: it runs a task through a sub-agent built
// from a persona, with its own history (it never sees the caller's
// conversation), instructions, model, tools and step budget, and returns
// the sub-agent's final answer (the synthesizer's when its budget runs
// out). The sub-agent's turn derives from the calling tool's context, so
// one cancel stops the tree; its events go to the caller's listeners
// forked for its id ("researcher 0"); its tool calls go through the same
// policy and approver. It asks no approval itself: what the sub-agent
// does is what asks.
type Delegate struct {
	tool.Unreviewed
	// Personas are the definitions a task can go to, by name.
	Personas map[string]Definition
	// Tools are what personas pick from by name: the caller's tools and the
	// pool only sub-agents may use. A persona without tools gets the
	// caller's own.
	Tools *tool.Set
	// MaxDepth bounds nesting (0: DefaultMaxDepth).
	MaxDepth int
	// Isolate, when set, gives a task a working tree of its own (a git
	// worktree): it returns the sub-agent's tools bound to that tree, and
	// finish, which says after the task what the tree holds (its branch,
	// what changed). Nil: isolation is refused.
	Isolate func(ctx context.Context, id string, tools *tool.Set) (isolated *tool.Set, finish func(context.Context) string, err error)

	mu     sync.Mutex
	counts map[string]int
}

func (d *Delegate) Name() string { return DelegateName }

// ChangesFiles implements tool.FileChanger: a sub-agent may use any tool
// it is given.
func (d *Delegate) ChangesFiles() bool { return true }

func (d *Delegate) Description() string {
	var b strings.Builder
	b.WriteString("Hand a self-contained task to a sub-agent and get its final answer. The sub-agent does not see this conversation: put everything it needs in the task. Several calls run at the same time. Sub-agents:")
	for _, name := range d.names() {
		fmt.Fprintf(&b, "\n- %s: %s", name, d.Personas[name].summary())
	}
	return b.String()
}

func (d *Delegate) Parameters() json.RawMessage {
	props := map[string]*tool.Schema{
		"name": tool.Choice("which sub-agent", d.names()),
		"task": tool.Prop("string", "the task, with all the context it needs"),
	}
	if d.Isolate != nil {
		props["isolation"] = tool.Choice("where it edits: worktree, a git worktree of its own (its changes come back on a branch, the working tree untouched; for editing tasks run side by side); shared, this working tree (default: the sub-agent's own setting)", []string{"shared", IsolationWorktree})
	}
	return tool.Object([]string{"name", "task"}, props)
}

func (d *Delegate) Timeout() time.Duration { return delegateTimeout }

// Concurrent lets several calls in one answer run at the same time.
func (d *Delegate) Concurrent() bool { return true }

func (d *Delegate) names() []string { return slices.Sorted(maps.Keys(d.Personas)) }

// summary is how a persona is advertised: its description, else its
// instructions' first line.
func (def Definition) summary() string {
	if d := strings.Join(strings.Fields(def.Description), " "); d != "" {
		return d
	}
	line, _, _ := strings.Cut(strings.TrimSpace(def.Instructions), "\n")
	if line == "" {
		return "(no instructions)"
	}
	return line
}

// Advert is the <available_agents> block for the system prompt.
func (d *Delegate) Advert() Advert { return Advert{Tool: DelegateName, Text: d.advertisement()} }

func (d *Delegate) advertisement() string {
	var b strings.Builder
	b.WriteString("<available_agents>\nSub-agents you can hand a self-contained task to with the agent tool:")
	for _, name := range d.names() {
		fmt.Fprintf(&b, "\n- %s: %s", name, d.Personas[name].summary())
	}
	b.WriteString("\n</available_agents>")
	return b.String()
}

// nextID is the persona-rooted id of a new sub-agent: "researcher 0",
// "researcher 1", …
func (d *Delegate) nextID(name string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.counts == nil {
		d.counts = map[string]int{}
	}
	n := d.counts[name]
	d.counts[name]++
	return fmt.Sprintf("%s %d", name, n)
}

// callerKey carries the agent whose tool call is running.
type callerKey struct{}

func withCaller(ctx context.Context, a *Agent) context.Context {
	return context.WithValue(ctx, callerKey{}, a)
}

// edits: a read-only persona keeps sharing the tree, isolation or not.
func edits(tools *tool.Set) bool {
	for _, t := range tools.All() {
		if t.Name() != DelegateName && tool.ChangesFiles(t) {
			return true
		}
	}
	return false
}

func (d *Delegate) Run(ctx context.Context, raw json.RawMessage) (result string, err error) {
	var args struct{ Name, Task, Isolation string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	if err := CheckIsolation(args.Isolation); err != nil {
		return "", err
	}
	def, ok := d.Personas[args.Name]
	if !ok {
		return "", fmt.Errorf("no sub-agent named %q; there are: %s", args.Name, strings.Join(d.names(), ", "))
	}
	if strings.TrimSpace(args.Task) == "" {
		return "", errors.New("the task is empty: say what the sub-agent should do")
	}
	caller, _ := ctx.Value(callerKey{}).(*Agent)
	if caller == nil {
		return "", errors.New("the agent tool runs only inside an agent's turn")
	}
	maxDepth := d.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	depth := caller.o.Depth + 1
	if depth > maxDepth {
		return "", fmt.Errorf("sub-agents may nest %d deep; do this task yourself", maxDepth)
	}
	origin, _ := listener.OriginOf(ctx)
	child, err := d.spawn(caller, def, d.nextID(args.Name), depth, depth < maxDepth)
	if err != nil {
		return "", err
	}
	// The sub-agent's turn is its caller's: its events and its approvals
	// carry the caller's turn number, so a host drops them with it.
	child.callerTurn = origin.Turn
	var finish func(context.Context) string
	if isolation := cmp.Or(args.Isolation, def.Isolation); isolation == IsolationWorktree && edits(child.o.Tools) {
		if d.Isolate == nil {
			return "", errors.New("isolation worktree is not available in this run: call it with isolation shared")
		}
		isolated, done, err := d.Isolate(ctx, child.o.ID, child.o.Tools)
		if err != nil {
			return "", fmt.Errorf("%s's worktree: %w", child.o.ID, err)
		}
		child.o.Tools, finish = isolated, done
	}
	res, err := child.Run(ctx, args.Task)
	if finish != nil {
		// What it left is said even when it failed: the branch holds it.
		defer func() {
			where := finish(context.WithoutCancel(ctx))
			switch {
			case where == "":
			case err != nil:
				err = fmt.Errorf("%w\n\n%s", err, where)
			default:
				result += "\n\n" + where
			}
		}()
	}
	if err != nil {
		var cancelled *control.CancelledError
		if errors.As(err, &cancelled) {
			return "", fmt.Errorf("%s was stopped: %s", child.o.ID, cancelled.Reason)
		}
		return "", fmt.Errorf("%s failed: %w", child.o.ID, err)
	}
	if strings.TrimSpace(res.Content) == "" {
		return "(" + child.o.ID + " gave no answer)", nil
	}
	return res.Content, nil
}

// spawn builds the sub-agent id for def, called by caller.
func (d *Delegate) spawn(caller *Agent, def Definition, id string, depth int, mayDelegate bool) (*Agent, error) {
	caller.cfgMu.Lock()
	o := caller.o
	caller.cfgMu.Unlock()
	// A set of its own: what the sub-agent connects (mcp_connect) never
	// becomes its caller's.
	tools := o.Tools.Copy()
	if def.Tools != nil {
		var err error
		if tools, err = def.ToolSet(d.Tools); err != nil {
			return nil, err
		}
	}
	if !mayDelegate {
		tools = tools.Without(DelegateName)
	}
	model := def.Model
	if model == "" {
		model = o.Model
	}
	system := def.Instructions
	if system == "" {
		system = "You are a sub-agent. Do the task you are given, using the tools when they help, and answer with what the caller needs: it sees only your final answer."
	}
	child := New(Options{
		ID: id, Depth: depth, Client: o.Client, Model: model, System: system, Project: o.Project, Hooks: o.Hooks, Tools: tools,
		Listeners: o.Listeners.ForSubAgent(id),
		// The turn's budget is the tree's: a persona's max_steps caps its
		// own share of it.
		StepLimit:   control.NewStepLimit(def.MaxSteps.Max()).Within(o.StepLimit),
		Cancellable: control.NewCancellable(),
		NoStream:    o.NoStream, Temperature: def.Options.Temperature, TopP: def.Options.TopP,
		MaxTokens: def.Options.MaxTokens, Schema: def.StructuredOutput, CompactAt: o.CompactAt, NoRescue: o.NoRescue,
		Price: o.Price, Spend: o.Spend, SmallModel: o.SmallModel,
	})
	if model == o.Model {
		child.window.Store(caller.window.Load())
	}
	return child, nil
}
