package hook

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/chatrepl/chat/tool"
)

// Before runs the PreToolUse hooks (tool.CallHooks). Ask outranks allow:
// one hook asking is enough to ask.
func (r *Runner) Before(ctx context.Context, name string, args json.RawMessage) tool.HookVerdict {
	if !r.Has("PreToolUse") {
		return tool.HookVerdict{}
	}
	out := r.Run(ctx, Input{Event: "PreToolUse", ToolName: name, ToolInput: args})
	r.notes(ctx, out)
	if out.Blocked {
		return tool.HookVerdict{Decision: tool.HookDeny, Reason: out.Reason}
	}
	return tool.HookVerdict{Decision: out.Decision, Reason: out.Reason}
}

// After runs the PostToolUse hooks (tool.CallHooks); what they say for
// the model (a block's reason, additional context) comes back as a note.
func (r *Runner) After(ctx context.Context, name string, args json.RawMessage, res tool.Result) string {
	if !r.Has("PostToolUse") {
		return ""
	}
	response := map[string]any{"output": res.Content, "success": res.Err == nil}
	out := r.Run(ctx, Input{Event: "PostToolUse", ToolName: name, ToolInput: args, ToolResponse: response})
	r.notes(ctx, out)
	var parts []string
	if out.Blocked {
		parts = append(parts, "[the user's PostToolUse hook says] "+out.Reason)
	}
	if out.Context != "" {
		parts = append(parts, "[the user's PostToolUse hook adds] "+out.Context)
	}
	return strings.Join(parts, "\n")
}

// notes shows a tool hook's notes with the call's output.
func (r *Runner) notes(ctx context.Context, out Outcome) {
	for _, n := range out.Notes {
		tool.Notice(ctx, "⚠ "+n)
	}
}

// Notify runs the Notification hooks (an approval is waiting), without
// waiting for them.
func (r *Runner) Notify(message string) {
	if !r.Has("Notification") {
		return
	}
	go func() {
		r.Show(r.Run(context.Background(), Input{Event: "Notification", Message: message}))
	}()
}

// Show shows an outcome's notes (and a block's reason) through r.Report:
// for events no turn carries.
func (r *Runner) Show(out Outcome) {
	if r.Report == nil {
		return
	}
	for _, n := range out.Notes {
		r.Report(n)
	}
	if out.Blocked {
		r.Report("a hook said: " + out.Reason)
	}
}
