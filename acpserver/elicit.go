package acpserver

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/app"
)

// The options of an MCP server's question, forwarded as a permission
// request: an editor shows it as it shows any.
const (
	optionAccept  = "accept"
	optionDecline = "decline"
)

var elicitations atomic.Int64

// elicitor forwards an MCP server's question (elicitation) to the editor
// as session/request_permission: the message, the URL or the fields with
// the values that would be sent, and Accept (when those values are
// enough: every required field has a default) or Decline. An editor that
// cancels the request cancels the question.
type elicitor struct{ l *live }

// Elicit implements app.Elicitor.
func (e *elicitor) Elicit(ctx context.Context, q app.Elicitation) (app.ElicitAnswer, error) {
	l := e.l
	select { // a server that asks as the session opens: once it is the editor's
	case <-l.known:
	case <-ctx.Done():
		return app.ElicitAnswer{}, ctx.Err()
	}
	values := map[string]string{}
	var lines []string
	acceptable := true
	for _, f := range q.Fields {
		values[f.Name] = f.Default
		v := f.Default
		if v == "" {
			v = "(empty)"
			if f.Required {
				v, acceptable = "(required, no default: cannot be filled in here)", false
			}
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", f.Label(), v))
	}
	detail := q.Message
	if q.URL != "" {
		detail += "\n\nVisit: " + q.URL
	}
	if len(lines) > 0 {
		detail += "\n\nAccepting sends:\n" + strings.Join(lines, "\n")
	}
	options := []acp.PermissionOption{{OptionId: optionDecline, Name: "Decline", Kind: acp.PermissionOptionKindRejectOnce}}
	if acceptable {
		name := "Accept"
		if q.URL != "" {
			name = "Done (I visited it)"
		}
		options = append([]acp.PermissionOption{{OptionId: optionAccept, Name: name, Kind: acp.PermissionOptionKindAllowOnce}}, options...)
	}
	call := acp.ToolCallUpdate{
		ToolCallId: acp.ToolCallId(fmt.Sprintf("ask-mcp-%d", elicitations.Add(1))),
		Title:      acp.Ptr(fmt.Sprintf("The MCP server %s asks: %s", q.Server, firstLine(q.Message))),
		Content:    []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(detail))},
	}
	l.out.flush()
	resp, err := l.srv.conn.RequestPermission(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(l.id), ToolCall: call, Options: options})
	switch {
	case err != nil && ctx.Err() != nil:
		return app.ElicitAnswer{}, ctx.Err()
	case err != nil:
		return app.ElicitAnswer{Action: "decline"}, nil
	case resp.Outcome.Selected == nil:
		return app.ElicitAnswer{Action: "cancel"}, nil
	case resp.Outcome.Selected.OptionId == optionAccept && acceptable:
		return app.ElicitAnswer{Action: "accept", Values: values}, nil
	}
	return app.ElicitAnswer{Action: "decline"}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
