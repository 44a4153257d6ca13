package tool

import (
	"context"
	"encoding/json"
)

// CallHooks are the person's own checks around each call (PreToolUse and
// PostToolUse hooks). Before may deny a call, ask the person about it or
// allow it without asking; none of that overrides a deny list or lets a
// command leave the sandbox. After sees the outcome and may add a note
// for the model.
type CallHooks interface {
	Before(ctx context.Context, tool string, args json.RawMessage) HookVerdict
	After(ctx context.Context, tool string, args json.RawMessage, res Result) string
}

// HookDecision is what a PreToolUse hook decided.
type HookDecision int

const (
	HookNone  HookDecision = iota // the policy decides, as without hooks
	HookAllow                     // run without asking (within the deny lists and the sandbox)
	HookAsk                       // ask the person, whatever would allow it otherwise
	HookDeny                      // do not run; Reason goes to the model
)

// HookVerdict is a decision and why.
type HookVerdict struct {
	Decision HookDecision
	Reason   string
}
