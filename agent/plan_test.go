package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

func planArgs(statuses ...string) string {
	names := []string{"survey", "change", "verify"}
	var parts []string
	for i, s := range statuses {
		parts = append(parts, `{"step":"`+names[i]+`","status":"`+s+`"}`)
	}
	return `{"plan":[` + strings.Join(parts, ",") + `]}`
}

// TestPlanIsPartOfTheConversation: the task list is the last update_plan
// call that succeeded, so it is saved, resumed and rewound with the
// history; a refused list does not count.
func TestPlanIsPartOfTheConversation(t *testing.T) {
	t.Parallel()
	ok := session.ToolCall{ID: "p1", Name: tool.PlanName, Arguments: planArgs("completed", "in_progress")}
	bad := session.ToolCall{ID: "p2", Name: tool.PlanName, Arguments: planArgs("in_progress", "in_progress")}
	msgs := []session.Message{session.User("q"), session.Assistant("", ok), session.ToolResult(ok, "Plan updated"),
		session.Assistant("", bad), session.ToolError(bad, "Error: 2 steps are in_progress", "execution_error")}
	p, found := agent.LatestPlan(msgs)
	if !found || len(p.Steps) != 2 || p.Steps[1].Status != "in_progress" {
		t.Fatalf("%v %+v", found, p)
	}
	if _, found := agent.LatestPlan(msgs[:1]); found {
		t.Fatal("a plan before any was kept")
	}
}

// TestSynthesisSaysWhereTheListStands: when the budget runs out, the
// synthesizer reads the task list and is asked what is done and left.
func TestSynthesisSaysWhereTheListStands(t *testing.T) {
	t.Parallel()
	r := newRig(t, []tool.Tool{tool.UpdatePlan{}, newEcho("echo")},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "p1", Name: tool.PlanName, Args: planArgs("completed", "in_progress", "pending")}}},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "e1", Name: "echo", Args: `{"text":"x"}`}}},
		oaitest.Answer{Text: "Surveyed; the change is half done; verify is left."})
	r.steps.SetMax(1)
	res, err := r.agent.Run(context.Background(), "do it all")
	if err != nil || !res.Synthesized {
		t.Fatalf("%+v %v", res, err)
	}
	reqs := r.srv.Requests()
	prompt := reqs[len(reqs)-1].Messages[1].Text()
	if !strings.Contains(prompt, "<tasks>\ndone: survey. in progress: change. left: verify\n</tasks>") || !strings.Contains(prompt, "which of those tasks are done") {
		t.Fatalf("synthesizer prompt:\n%s", prompt)
	}
}
