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
