package tool

import (
	"strings"
	"testing"

	"github.com/chatrepl/chat/tool/sandbox"
)

// TestToolSizesArePinned: what each built-in tool costs every request
// (description and schema, in bytes), whole and in its short form for a
// small window. Growth is a decision: raise a number here with the reason
// in the commit. (run_shell's whole description adds a sentence on the
// box at run time.)
func TestToolSizesArePinned(t *testing.T) {
	pinned := map[string][2]int{
		"read_file": {391, 196}, "list_files": {443, 158}, "grep": {581, 228}, "fetch_url": {242, 120},
		"write_file": {308, 155}, "edit_file": {574, 271}, "run_shell": {855, 196}, "update_plan": {738, 289},
		"job_output": {327, 0}, "job_stop": {164, 0},
	}
	for name, s := range specs() {
		want, ok := pinned[name]
		if !ok {
			t.Errorf("%s has no pinned size", name)
			continue
		}
		whole := len(s.Description) + len(s.Parameters)
		brief := 0
		if s.Brief != "" {
			brief = len(s.Brief) + len(s.brief)
		}
		if whole > want[0] || brief > want[1] {
			t.Errorf("%s costs %d bytes whole and %d short; pinned at %d and %d", name, whole, brief, want[0], want[1])
		}
		if s.Brief != "" && strings.Contains(string(s.brief), `"description"`) {
			t.Errorf("%s's short schema keeps descriptions: %s", name, s.brief)
		}
	}
	// The box's sentence: what run_shell's description adds.
	c := NewConfinement(sandbox.Spec{Mode: sandbox.WorkspaceWrite, Workdir: t.TempDir()}, nil)
	c.Net = &Network{}
	if d := (RunShell{Workspace: Workspace{Shell: c}}).Description(); len(d) > 1130 {
		t.Errorf("run_shell's description in the box is %d bytes, pinned at 1130", len(d))
	}
}
