package acpserver

import (
	"context"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// The options of a permission request, mapped to chat's verdicts.
const (
	optionAllow  = "allow"
	optionAlways = "allow_always"
	optionReject = "reject"
)

// approver asks the person in the editor: session/request_permission on
// the call being asked about. Only what the policy leaves open comes here
// (the sandbox, the deny lists and the hooks have had their say).
type approver struct{ l *live }

// Approve implements tool.Approver.
func (a *approver) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	l := a.l
	origin, _ := listener.OriginOf(ctx)
	title := r.Review.Summary
	if title == "" {
		title = r.Tool
	}
	if len(r.Why) > 0 {
		title += " (" + strings.Join(r.Why, "; ") + ")"
	}
	if d := r.Review.Detail; r.NoModel && d != "" && len(d) <= 300 && !strings.Contains(d, "\n") {
		title += " — " + d // who asks (a host for the box's network: the command)
	}
	options := []acp.PermissionOption{{OptionId: optionAllow, Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce}}
	if len(r.Always) > 0 {
		var what []string
		for _, g := range r.Always {
			what = append(what, g.Value)
		}
		scope := r.AlwaysScope
		if scope == "" {
			scope = "this session"
		}
		options = append(options, acp.PermissionOption{OptionId: optionAlways, Name: "Always allow " + strings.Join(what, ", ") + " (" + scope + ")", Kind: acp.PermissionOptionKindAllowAlways})
	}
	options = append(options, acp.PermissionOption{OptionId: optionReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce})
	call := acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(callID(origin.Agent, r.CallID)), Title: acp.Ptr(title)}
	if r.CallID == "" {
		call.ToolCallId = acp.ToolCallId("ask-" + r.Tool)
	}
	// Everything the person has been shown of the call goes out first.
	l.out.flush()
	resp, err := l.srv.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(l.id), ToolCall: call, Options: options})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Decision{}, ctx.Err()
		}
		return tool.Decision{Verdict: tool.Deny, Reason: "the editor did not answer the request for permission: " + err.Error()}, nil
	}
	switch {
	case resp.Outcome.Selected == nil:
		return tool.Decision{Verdict: tool.Deny, Reason: "the user cancelled"}, nil
	case resp.Outcome.Selected.OptionId == optionAllow:
		return tool.Decision{Verdict: tool.Allow}, nil
	case resp.Outcome.Selected.OptionId == optionAlways && len(r.Always) > 0:
		return tool.Decision{Verdict: tool.AllowAlways}, nil
	}
	return tool.Decision{Verdict: tool.Deny, Reason: "the user declined"}, nil
}
