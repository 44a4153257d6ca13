package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/tool"
)

func askFor(f *fixture, r tool.Request) chan tool.Decision {
	reply := make(chan tool.Decision, 1)
	f.send(approvalMsg{req: r, reply: reply})
	return reply
}

func TestApprovalPrompt(t *testing.T) {
	t.Parallel()
	edit := tool.Request{Tool: "edit_file", Review: tool.Review{NeedsApproval: true, Summary: "edit main.go",
		Detail: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old line\n+new line\n"}}
	tests := []struct {
		name    string
		keys    []string
		verdict tool.Verdict
		reason  string
	}{
		{"yes", []string{"y"}, tool.Allow, ""},
		{"always", []string{"a"}, tool.AllowAlways, ""},
		{"no", []string{"n"}, tool.Deny, "the user declined"},
		{"no, and why", []string{"t", "u", "s", "e", " ", "v", "2", "enter"}, tool.Deny, "the user declined: use v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.busy("change it")
			reply := askFor(f, edit)
			view := ansi.Strip(f.m.View().Content)
			for _, want := range []string{"? edit_file wants to: edit main.go", "-old line", "+new line", "[y]es  [a]lways for edit_file"} {
				if !strings.Contains(view, want) {
					t.Fatalf("prompt lacks %q:\n%s", want, view)
				}
			}
			if !strings.Contains(view, "waiting for your approval") {
				t.Fatal("status does not say it waits")
			}
			for _, k := range tt.keys {
				if k == "enter" {
					f.send(press("enter"))
				} else {
					f.typeText(k)
				}
			}
			select {
			case d := <-reply:
				if d.Verdict != tt.verdict || d.Reason != tt.reason {
					t.Fatalf("decision %+v", d)
				}
			default:
				t.Fatal("no answer")
			}
			if f.m.asking != nil || len(f.m.pending) != 0 {
				t.Fatal("the keys leaked into the pending list or the prompt stayed")
			}
		})
	}
	t.Run("ctrl+c cancels the turn", func(t *testing.T) {
		f := newFixture(t)
		f.busy("run it")
		askFor(f, tool.Request{Tool: "run_shell", Review: tool.Review{NeedsApproval: true, Summary: "run: make", Command: "make"}})
		if !strings.Contains(ansi.Strip(f.m.View().Content), "$ make") {
			t.Fatal("command not shown")
		}
		f.send(press("ctrl+c"))
		if !f.cancel.Cancelled() || f.m.asking != nil || f.m.busy {
			t.Fatal("ctrl+c while asking did not cancel the turn")
		}
	})
}
