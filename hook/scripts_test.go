package hook

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScriptsFindsTheWorkspaceFilesACommandNames: relative, absolute,
// quoted and $CHAT_PROJECT_DIR paths to files inside the folder count;
// folders, missing files, files outside and computed words do not.
func TestScriptsFindsTheWorkspaceFilesACommandNames(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "work")
	for _, f := range []string{"work/scripts/check", "work/tools/b.py", "work/notes.md", "outside.sh"} {
		os.MkdirAll(filepath.Dir(filepath.Join(base, f)), 0o755)
		os.WriteFile(filepath.Join(base, f), []byte("x"), 0o755)
	}
	got := Scripts(`./scripts/check --strict && python3 "$CHAT_PROJECT_DIR/tools/b.py" < notes.md | sh ../outside.sh $(cat tools/b.py) scripts missing`, dir)
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	if want := []string{"scripts/check", "tools/b.py"}; !slices.Equal(got, want) {
		t.Errorf("Scripts = %v, want %v", got, want)
	}
}

// TestAChangedScriptIsRefusedWithoutAnAnswer: pinned, the hook runs;
// changed, it does not, and a PreToolUse refuses the call; Retrust's yes
// pins the new content.
func TestAChangedScriptIsRefusedWithoutAnAnswer(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "policy")
	os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	r, err := New([]Hook{{Event: "PreToolUse", Command: "./policy"}}, dir, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	r.Pin(map[string]string{script: Digest(script)})
	if out := r.Run(t.Context(), Input{Event: "PreToolUse", ToolName: "run_shell"}); out.Blocked {
		t.Fatalf("the pinned script was refused: %+v", out)
	}
	os.WriteFile(script, []byte("#!/bin/sh\necho changed >&2; exit 0\n"), 0o755)
	if out := r.Run(t.Context(), Input{Event: "PreToolUse", ToolName: "run_shell"}); !out.Blocked {
		t.Fatalf("a changed script ran: %+v", out)
	}
	asked := 0
	r.Retrust = func(_ context.Context, _ Hook, changed map[string]string) bool { asked++; return true }
	for range 2 {
		if out := r.Run(t.Context(), Input{Event: "PreToolUse", ToolName: "run_shell"}); out.Blocked {
			t.Fatalf("refused after a yes: %+v", out)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once", asked)
	}
}
