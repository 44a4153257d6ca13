package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/tool"
)

func runner(t *testing.T, hooks ...Hook) *Runner {
	t.Helper()
	r, err := New(hooks, t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMatcherIsAnchored(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "ran")
	r := runner(t, Hook{Event: "PreToolUse", Matcher: "read_file", Command: "touch " + trace})
	r.Before(context.Background(), "read_file_extra", nil)
	if _, err := os.Stat(trace); err == nil {
		t.Fatal("read_file matched read_file_extra")
	}
	r.Before(context.Background(), "read_file", nil)
	if _, err := os.Stat(trace); err != nil {
		t.Fatal("read_file did not match itself")
	}
}

func TestAnswers(t *testing.T) {
	for _, c := range []struct {
		name, event, command string
		blocked              bool
		decision             tool.HookDecision
		context, reason      string
	}{
		{"exit 0 plain text is context", "UserPromptSubmit", "echo extra", false, tool.HookNone, "extra", ""},
		{"exit 0 plain text of a tool hook is nothing", "PreToolUse", "echo extra", false, tool.HookNone, "", ""},
		{"exit 2 blocks with stderr", "PreToolUse", "echo why >&2; exit 2", true, tool.HookNone, "", "why"},
		{"other exits do not block", "PreToolUse", "echo oops >&2; exit 1", false, tool.HookNone, "", ""},
		{"deny", "PreToolUse", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"r"}}'`, true, tool.HookNone, "", "r"},
		{"ask", "PreToolUse", `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`, false, tool.HookAsk, "", ""},
		{"allow", "PreToolUse", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, false, tool.HookAllow, "", ""},
		{"older approve", "PreToolUse", `echo '{"decision":"approve"}'`, false, tool.HookAllow, "", ""},
		{"older block", "PreToolUse", `echo '{"decision":"block","reason":"no"}'`, true, tool.HookNone, "", "no"},
		{"continue false", "Stop", `echo '{"continue":false,"stopReason":"halt"}'`, true, tool.HookNone, "", "halt"},
		{"additional context", "UserPromptSubmit", `echo '{"hookSpecificOutput":{"additionalContext":"ctx"}}'`, false, tool.HookNone, "ctx", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runner(t, Hook{Event: c.event, Command: c.command})
			out := r.Run(context.Background(), Input{Event: c.event, ToolName: "x"})
			if out.Blocked != c.blocked || out.Decision != c.decision || out.Context != c.context || (c.reason != "" && out.Reason != c.reason) {
				t.Fatalf("%+v", out)
			}
		})
	}
}

func TestAskOutranksAllow(t *testing.T) {
	r := runner(t,
		Hook{Event: "PreToolUse", Command: `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"look"}}'`},
		Hook{Event: "PreToolUse", Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`})
	if v := r.Before(context.Background(), "x", nil); v.Decision != tool.HookAsk || v.Reason != "look" {
		t.Fatalf("%+v", v)
	}
}

func TestInputAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "in.json")
	r := runner(t, Hook{Event: "PostToolUse", Command: "cat > " + out + "; echo $CHAT_PROJECT_DIR >> " + out})
	r.Session = func() (string, string) { return "sess-1", "/tmp/sess-1.jsonl" }
	r.After(context.Background(), "run_shell", json.RawMessage(`{"command":"ls"}`), tool.Result{Content: "a b"})
	b, _ := os.ReadFile(out)
	first, env, _ := strings.Cut(string(b), "\n")
	var in map[string]any
	if err := json.Unmarshal([]byte(first), &in); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	resp, _ := in["tool_response"].(map[string]any)
	if in["hook_event_name"] != "PostToolUse" || in["session_id"] != "sess-1" || in["transcript_path"] != "/tmp/sess-1.jsonl" ||
		in["cwd"] != r.Dir || resp["output"] != "a b" || strings.TrimSpace(env) != r.Dir {
		t.Fatalf("%s", b)
	}
}

func TestTimeoutKillsTheGroupAndDecidesNothing(t *testing.T) {
	r := runner(t, Hook{Event: "PreToolUse", Command: `(sleep 60; echo late) & sleep 60; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, Timeout: 200 * time.Millisecond})
	out := r.Run(context.Background(), Input{Event: "PreToolUse"})
	if out.Decision != tool.HookNone || out.Blocked || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "timed out") {
		t.Fatalf("%+v", out)
	}
}

func TestEndlessOutputIsBounded(t *testing.T) {
	r := runner(t, Hook{Event: "UserPromptSubmit", Command: "head -c 10000000 /dev/zero | tr '\\0' x"})
	out := r.Run(context.Background(), Input{Event: "UserPromptSubmit"})
	if len(out.Context) > maxOutput {
		t.Fatalf("%d bytes kept", len(out.Context))
	}
}
