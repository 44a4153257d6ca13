package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool/sandbox"
)

// planTag marks a message sent in plan mode (in the context that goes
// with it): the mode is part of the conversation, so a resumed session
// is still planning.
const planTag = "<plan-mode>"

// PlanContext goes with every message of plan mode.
const PlanContext = planTag + `
This is plan mode: do not change anything yet. Read, search and run read-only commands (they run in a sandbox that refuses every write) to understand the task, then answer with a plan: numbered steps, each naming the files it expects to change, and what you will check at the end. Also keep those steps as your task list with update_plan, all pending. The user will review the plan, change it, or tell you to go.
</plan-mode>`

// GoPrompt is what leaving plan mode sends: the plan is carried out.
const GoPrompt = "Go: carry out the plan above, step by step, keeping the task list current with update_plan."

// EditedPlanPrompt is what leaving plan mode with an edited plan sends.
func EditedPlanPrompt(plan string) string {
	return "Go: carry out this plan (the user edited it), step by step, keeping the task list current with update_plan:\n\n" + plan
}

// errNotBoxed is plan mode asked for where commands cannot be confined
// read-only: the mode still holds, commands are refused.
var errNotBoxed = errors.New("no sandbox here: in plan mode commands are refused (files can still be read and searched)")

// SetPlanning turns plan mode on or off. On: commands run in a read-only
// box, and every call whose tool may change files is refused, the
// sub-agents' too; what the model sends is told it is planning. Off: the
// box mode before it comes back. It says (as an error, the mode still
// set) when commands cannot run at all in plan mode here.
func (r *Run) SetPlanning(on bool) error {
	policy := r.tools.Policy()
	if on == policy.Planning() {
		return nil
	}
	policy.SetPlanning(on)
	r.shell.SetPlanning(on)
	if !r.shell.Boxed() {
		if on {
			return errNotBoxed
		}
		return nil
	}
	if on {
		r.boxBeforePlan = sandbox.WorkspaceWrite
		if r.shell.ReadOnly() {
			r.boxBeforePlan = sandbox.ReadOnly
		}
		if err := r.shell.SetMode(sandbox.ReadOnly); err != nil {
			// A box that may write must not run plan mode's commands.
			policy.SetPlanning(false)
			r.shell.SetPlanning(false)
			return fmt.Errorf("plan mode could not start: %w", err)
		}
		// What already runs and may write (a job, what a command left
		// running) is stopped until plan mode ends.
		if n := r.shell.FreezeWriters(); n > 0 {
			r.jobs.SetFrozen(true)
			// Said from another goroutine: a front end calls SetPlanning
			// from its own loop, which is where what is said arrives.
			go r.say(fmt.Sprintf("plan mode: %s that could write stopped until plan mode ends (/go or leaving plan mode continues %s)", processes(n), them(n)))
		}
		return nil
	}
	err := r.shell.SetMode(r.boxBeforePlan) // failing, it stays read-only
	if err == nil {
		if n := r.shell.ThawWriters(); n > 0 {
			go r.say(fmt.Sprintf("plan mode ended: %s continued", processes(n)))
		}
		r.jobs.SetFrozen(false)
	}
	return err
}

func processes(n int) string {
	if n == 1 {
		return "1 running process"
	}
	return fmt.Sprintf("%d running processes", n)
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Planning reports whether plan mode is on.
func (r *Run) Planning() bool { return r.tools.Policy().Planning() }

// NewTurn is a turn of the run's agent on text: in plan mode the message
// carries what plan mode asks of the model.
func (r *Run) NewTurn(ctx context.Context, text string, files ...session.FilePart) *agent.Turn {
	return r.NewTurnWith(ctx, "", text, files...)
}

// NewTurnWith is NewTurn with its requests naming model ("": the run's).
func (r *Run) NewTurnWith(ctx context.Context, model, text string, files ...session.FilePart) *agent.Turn {
	if r.Planning() && !r.reviewing {
		r.agent.AddContext(PlanContext)
	}
	return r.agent.NewTurnWith(ctx, model, text, files...)
}

// wasPlanning says whether a conversation was in plan mode when it
// stopped: its last question was sent in it.
func wasPlanning(msgs []session.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser && !msgs[i].Unanswered {
			return strings.Contains(msgs[i].Context, planTag)
		}
	}
	return false
}

// PlannedIn says whether a message was sent in plan mode (transcripts
// mark it).
func PlannedIn(m session.Message) bool {
	return m.Role == session.RoleUser && strings.Contains(m.Context, planTag)
}
