package agent

import (
	"encoding/json"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// planEvent is the event a successful update_plan call makes (ok false
// for any other call).
func planEvent(o listener.Origin, c session.ToolCall, failed bool) (listener.Plan, bool) {
	if c.Name != tool.PlanName || failed {
		return listener.Plan{}, false
	}
	p, err := tool.ParsePlan(json.RawMessage(c.Arguments))
	if err != nil {
		return listener.Plan{}, false
	}
	return listener.Plan{Origin: o, Explanation: p.Explanation, Steps: PlanSteps(p)}, true
}

// PlanSteps is a task list as listeners show it.
func PlanSteps(p tool.Plan) []listener.PlanStep {
	steps := make([]listener.PlanStep, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = listener.PlanStep{Step: s.Step, Status: s.Status}
	}
	return steps
}

// LatestPlan is the task list msgs leave the agent with: the last
// update_plan call that succeeded (ok false: none). The list is part of
// the conversation: saved, resumed and rewound with it.
func LatestPlan(msgs []session.Message) (tool.Plan, bool) {
	failed := map[string]bool{}
	for _, m := range msgs {
		if m.Role == session.RoleTool && m.IsError() {
			failed[m.ToolCallID] = true
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		calls := msgs[i].ToolCalls
		for j := len(calls) - 1; j >= 0; j-- {
			if c := calls[j]; c.Name == tool.PlanName && !failed[c.ID] {
				if p, err := tool.ParsePlan(json.RawMessage(c.Arguments)); err == nil {
					return p, true
				}
			}
		}
	}
	return tool.Plan{}, false
}

// PlanAdvert tells the model when to keep a task list.
const PlanAdvert = `For work of three or more steps (or a list the user gives), keep a task list with ` + tool.PlanName + `: every step with its status, exactly one in_progress, updated as each is done (the user watches it). Not for a question or a one-step change.`
