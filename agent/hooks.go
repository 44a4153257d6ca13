package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// maxStopContinues bounds how often Stop hooks may send a turn back to
// work: a hook that always blocks must not loop forever.
const maxStopContinues = 5

// PromptBlockedError is a message a UserPromptSubmit hook refused: it is
// not added to the history.
type PromptBlockedError struct{ Reason string }

func (e *PromptBlockedError) Error() string {
	return "your UserPromptSubmit hook blocked this message: " + e.Reason
}

// AddContext keeps text to go with the next message the person sends
// (a ! command and its output, a SessionStart hook's output).
func (a *Agent) AddContext(text string) {
	a.cfgMu.Lock()
	a.context = strings.TrimSpace(a.context + "\n\n" + text)
	a.cfgMu.Unlock()
}

// takeContext is what waits to go with the next message.
func (a *Agent) takeContext() string {
	a.cfgMu.Lock()
	defer a.cfgMu.Unlock()
	c := a.context
	a.context = ""
	return c
}

// Hooks are the agent's hooks (nil: none).
func (a *Agent) Hooks() *hook.Runner { return a.o.Hooks }

// notice shows text to the person as part of this turn.
func (t *turn) notice(text string) {
	t.emit(listener.Notice{Origin: t.origin, Text: text})
}

// hookCtx is a context under which tool hooks report to this turn.
func (t *turn) hookCtx(ctx context.Context) context.Context {
	return tool.WithNotice(ctx, t.notice)
}

// runHooks runs the hooks of in.Event and shows their notes.
func (t *turn) runHooks(in hook.Input) hook.Outcome {
	out := t.a.o.Hooks.Run(t.a.o.Cancellable.Context(), in)
	for _, n := range out.Notes {
		t.notice("⚠ " + n)
	}
	return out
}

// userMessage is the person's message with what goes with it: context
// kept for it, and what UserPromptSubmit hooks add; an error when a hook
// blocks it.
func (t *turn) userMessage(text string, files []session.FilePart) (session.Message, error) {
	m := session.User(text, files...)
	m.Context = t.a.takeContext()
	if t.a.o.Hooks.Has("UserPromptSubmit") {
		out := t.runHooks(hook.Input{Event: "UserPromptSubmit", Prompt: text})
		if out.Blocked {
			return m, &PromptBlockedError{Reason: out.Reason}
		}
		if out.Context != "" {
			m.Context = strings.TrimSpace(m.Context + "\n\n<user-prompt-submit-hook>\n" + out.Context + "\n</user-prompt-submit-hook>")
		}
	}
	return m, nil
}

// stopHook runs the Stop (SubagentStop for a sub-agent) hooks when the
// model has answered; true when one sends the turn back to work, its
// reason added for the model.
func (t *turn) stopHook() bool {
	event := "Stop"
	if t.a.o.Depth > 0 {
		event = "SubagentStop"
	}
	if !t.a.o.Hooks.Has(event) || t.stopContinues >= maxStopContinues {
		return false
	}
	out := t.runHooks(hook.Input{Event: event, StopHookActive: t.stopContinues > 0})
	if !out.Blocked || t.a.o.Cancellable.Cancelled() {
		return false
	}
	t.stopContinues++
	t.notice(fmt.Sprintf("↻ your %s hook sends the agent back to work: %s", event, out.Reason))
	t.appendUser(session.User("[the user's "+event+" hook did not let you stop] "+out.Reason), true)
	return true
}

// preCompact runs the PreCompact hooks; they are told, and may say
// something to the person, but cannot stop a compaction the window needs.
func (t *turn) preCompact(manual bool, instructions string) {
	if !t.a.o.Hooks.Has("PreCompact") {
		return
	}
	trigger := "auto"
	if manual {
		trigger = "manual"
	}
	out := t.runHooks(hook.Input{Event: "PreCompact", Trigger: trigger, Instructions: instructions})
	if out.Blocked {
		t.notice("your PreCompact hook objected (compaction goes on): " + out.Reason)
	}
}
