package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestUpdatePlanChecksTheList: a list is every step with a known status,
// at most one in progress; what is wrong is said so the model can fix it.
func TestUpdatePlanChecksTheList(t *testing.T) {
	t.Parallel()
	set := NewSet(UpdatePlan{})
	for _, tt := range []struct{ args, want string }{
		{`{"plan":[{"step":"a","status":"completed"},{"step":"b","status":"in_progress"},{"step":"c","status":"pending"}]}`, "Plan updated: 1 of 3 steps completed."},
		{`{"plan":[]}`, "has no steps"},
		{`{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`, "2 steps are in_progress"},
		{`{"plan":[{"step":"a","status":"done"}]}`, "invalid arguments"},
		{`{"plan":[{"step":" ","status":"pending"}]}`, "step 1 has no text"},
	} {
		if r := set.Dispatch(context.Background(), PlanName, tt.args); !strings.Contains(r.Content, tt.want) {
			t.Errorf("%s: %q", tt.args, r.Content)
		}
	}
	p, err := ParsePlan(json.RawMessage(`{"plan":[{"step":"read","status":"completed"},{"step":"write","status":"in_progress"},{"step":"test","status":"pending"}]}`))
	if err != nil || p.Summary() != "done: read. in progress: write. left: test" {
		t.Fatalf("%v %q", err, p.Summary())
	}
	if ChangesFiles(UpdatePlan{}) {
		t.Fatal("keeping a list changes no file")
	}
}

// TestPlanModeChangesNothing: in plan mode every call whose tool may
// change files is refused, but for a command the box confines (read-only
// in plan mode); reading, searching and the task list go on.
func TestPlanModeChangesNothing(t *testing.T) {
	t.Parallel()
	p := &Policy{AllowAll: true}
	p.SetPlanning(true)
	for _, tt := range []struct {
		tool     Tool
		review   Review
		allowed  bool
		whatIsIt string
	}{
		{WriteFile{}, Review{NeedsApproval: true}, false, "a write"},
		{EditFile{}, Review{NeedsApproval: true}, false, "an edit"},
		{RunShell{}, Review{NeedsApproval: true, Command: "make"}, false, "a command with no box"},
		{RunShell{}, Review{Confined: true, Command: "make test"}, true, "a command in the read-only box"},
		{ReadFile{}, Review{}, true, "a read"},
		{UpdatePlan{}, Review{}, true, "the task list"},
	} {
		d, err := p.decide(context.Background(), Request{Tool: tt.tool.Name(), Review: tt.review, changesFiles: ChangesFiles(tt.tool)}, nil)
		if err != nil || (d.Verdict == Allow) != tt.allowed {
			t.Errorf("%s: %+v %v", tt.whatIsIt, d, err)
		}
		if !tt.allowed && !strings.Contains(d.Reason, "plan mode") {
			t.Errorf("%s: the refusal does not say why: %q", tt.whatIsIt, d.Reason)
		}
	}
	p.SetPlanning(false)
	if d, _ := p.decide(context.Background(), Request{Tool: "write_file", Review: Review{NeedsApproval: true}, changesFiles: true}, nil); d.Verdict != Allow {
		t.Fatalf("after plan mode: %+v", d)
	}
}
