package app

import (
	"context"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/session"
)

// The agent's types a front end meets, named here: front ends see the
// application, never the agent package.
type (
	Turn               = agent.Turn
	Outcome            = agent.Outcome
	Result             = agent.Result
	ContextParts       = agent.ContextParts
	PromptBlockedError = agent.PromptBlockedError
	TooLargeError      = agent.TooLargeError
)

var (
	// ErrNothingToCompact: /compact found no earlier turns to fold.
	ErrNothingToCompact = agent.ErrNothingToCompact
	// InitPrompt is what /init asks of the model.
	InitPrompt = agent.InitPrompt
	// LatestPlan and PlanSteps read the task list the model keeps.
	LatestPlan = agent.LatestPlan
	PlanSteps  = agent.PlanSteps
	// CompileSchema checks a --schema; ParseStructured reads an answer
	// against it.
	CompileSchema   = agent.CompileSchema
	ParseStructured = agent.ParseStructured
)

// The main agent, as a front end drives it.

// Model is the model the agent asks.
func (r *Run) Model() string { return r.agent.Model() }

// SetModel switches the model (/model).
func (r *Run) SetModel(name string) { r.agent.SetModel(name) }

// StepLimit is the turn's step budget (/steps changes it).
func (r *Run) StepLimit() *control.StepLimit { return r.agent.StepLimit() }

// ContextWindow is the model's window in tokens (0: unknown).
func (r *Run) ContextWindow() int { return r.agent.ContextWindow() }

// ContextSize is the tokens the next request will carry.
func (r *Run) ContextSize() int { return r.agent.ContextSize() }

// ContextReport is what the context holds, part by part (/context).
func (r *Run) ContextReport() ContextParts { return r.agent.ContextReport() }

// AddContext goes with the next question (a ! command's output).
func (r *Run) AddContext(text string) { r.agent.AddContext(text) }

// Session is the conversation in use.
func (r *Run) Session() *session.Session { return r.agent.Session() }

// NewSession starts a fresh conversation (/new, /clear); SetSession
// switches to a stored one (/resume).
func (r *Run) NewSession() *session.Session     { return r.agent.NewSession() }
func (r *Run) SetSession(s *session.Session)    { r.agent.SetSession(s) }
func (r *Run) SetSystem(text string)            { r.agent.SetSystem(text) }
func (r *Run) SetSchema(schema []byte)          { r.agent.SetSchema(schema) }
func (r *Run) Schema() []byte                   { return r.agent.Schema() }
func (r *Run) SettleWindow(ctx context.Context) { r.agent.SettleWindow(ctx) }
func (r *Run) SetContextWindow(tokens int)      { r.agent.SetContextWindow(tokens) }
func (r *Run) Cancel(reason string)             { r.agent.Cancel(reason) }
func (r *Run) Compact(ctx context.Context, instructions string) *Turn {
	return r.agent.Compact(ctx, instructions)
}
