package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestContinueAfterExtensionsChange: a session started with a skill (its
// tool in the session's agent) continues after the skill is gone, and one
// started without personas gets the agent tool once a persona exists:
// the tools of extensions follow the run, not the session file.
func TestContinueAfterExtensionsChange(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "ok"} })
	home, dir := t.TempDir(), t.TempDir()
	writeProjectSkill(t, dir)
	run1 := func(args ...string) (string, string, int) {
		return run(t, inHome(t, command(t, srv, args...), home, dir))
	}
	if _, errOut, code := run1("-p", "first"); code != 0 {
		t.Fatal(errOut)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".chat")); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, home, personaConfig)
	if out, errOut, code := run1("--continue", "-p", "second"); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	tools := reqs[len(reqs)-1].ToolNames()
	if slices.Contains(tools, "skill") || !slices.Contains(tools, "agent") {
		t.Fatalf("the continued session offers %v", tools)
	}
}
