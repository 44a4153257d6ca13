package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PlanName is the task-list tool's name.
const PlanName = "update_plan"

// The statuses of a step.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanCompleted  = "completed"
)

// PlanStep is one step of an agent's task list.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Plan is an agent's task list, as update_plan sets it.
type Plan struct {
	Explanation string     `json:"explanation,omitempty"`
	Steps       []PlanStep `json:"plan"`
}

// maxPlanSteps bounds a list a person can watch.
const maxPlanSteps = 50

// ParsePlan reads update_plan's arguments and checks them: at least one
// step, each with a known status, at most one in progress.
func ParsePlan(args json.RawMessage) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(args, &p); err != nil {
		return p, fmt.Errorf("the plan is not valid JSON: %v", err)
	}
	if len(p.Steps) == 0 {
		return p, errors.New("the plan has no steps; send every step with its status")
	}
	if len(p.Steps) > maxPlanSteps {
		return p, fmt.Errorf("the plan has %d steps; keep it to %d, in larger steps", len(p.Steps), maxPlanSteps)
	}
	running := 0
	for i, s := range p.Steps {
		if strings.TrimSpace(s.Step) == "" {
			return p, fmt.Errorf("step %d has no text", i+1)
		}
		switch s.Status {
		case PlanInProgress:
			running++
		case PlanPending, PlanCompleted:
		default:
			return p, fmt.Errorf("step %d has status %q; use pending, in_progress or completed", i+1, s.Status)
		}
	}
	if running > 1 {
		return p, fmt.Errorf("%d steps are in_progress; keep exactly one in progress while you work", running)
	}
	return p, nil
}

// Done counts the completed steps.
func (p Plan) Done() int {
	n := 0
	for _, s := range p.Steps {
		if s.Status == PlanCompleted {
			n++
		}
	}
	return n
}

// Summary is the list in one line a model reads: what is done, in
// progress and left ("" for no list).
func (p Plan) Summary() string {
	var done, doing, left []string
	for _, s := range p.Steps {
		switch s.Status {
		case PlanCompleted:
			done = append(done, s.Step)
		case PlanInProgress:
			doing = append(doing, s.Step)
		default:
			left = append(left, s.Step)
		}
	}
	var parts []string
	for _, part := range []struct {
		label string
		steps []string
	}{{"done", done}, {"in progress", doing}, {"left", left}} {
		if len(part.steps) > 0 {
			parts = append(parts, part.label+": "+strings.Join(part.steps, "; "))
		}
	}
	return strings.Join(parts, ". ")
}

// UpdatePlan is the update_plan tool: the agent keeps its task list for
// multi-step work, and the person watches it. Setting the list is all it
// does; the agent tells the listeners.
type UpdatePlan struct {
	described[updatePlanName]
	Unreviewed
}

type updatePlanName struct{}

func (updatePlanName) toolName() string { return PlanName }

// Run implements Tool.
func (UpdatePlan) Run(_ context.Context, args json.RawMessage) (string, error) {
	p, err := ParsePlan(args)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Plan updated: %d of %d steps completed.", p.Done(), len(p.Steps)), nil
}
