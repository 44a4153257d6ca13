package web

import (
	"time"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// messageView is one message of the history as the page draws it. Text
// is text (the page sets it as textContent); HTML is Markdown rendered
// and sanitized here.
type messageView struct {
	ID          string                  `json:"id"`
	Role        string                  `json:"role"`
	Time        time.Time               `json:"time"`
	Text        string                  `json:"text,omitempty"`
	HTML        string                  `json:"html,omitempty"`
	Reasoning   string                  `json:"reasoning,omitempty"`
	ToolCalls   []listener.ToolCallInfo `json:"tool_calls,omitempty"`
	Synthesized bool                    `json:"synthesized,omitempty"`
	Interrupted bool                    `json:"interrupted,omitempty"`
	Unanswered  bool                    `json:"unanswered,omitempty"`
	Files       []string                `json:"files,omitempty"`
	CallID      string                  `json:"call_id,omitempty"`
	Name        string                  `json:"name,omitempty"`
	Error       bool                    `json:"error,omitempty"`
	Usage       *session.Usage          `json:"usage,omitempty"`
	Summarized  int                     `json:"summarized,omitempty"`
}

// viewOfMessages is the history as the page draws it (no system message,
// nothing rewound).
func viewOfMessages(msgs []session.Message) []messageView {
	out := make([]messageView, 0, len(msgs))
	s := listener.String
	for _, m := range msgs {
		if m.Role == session.RoleSystem || m.Rewound {
			continue
		}
		v := messageView{ID: m.ID, Role: string(m.Role), Time: m.Time, Text: s(m.Content)}
		switch m.Role {
		case session.RoleUser:
			v.Unanswered = m.Unanswered
			for _, f := range m.Files {
				v.Files = append(v.Files, s(f.Filename))
			}
		case session.RoleAssistant:
			v.HTML = Markdown(m.Content)
			v.Reasoning = s(m.Reasoning)
			v.Synthesized, v.Interrupted, v.Usage = m.Synthesized, m.Interrupted, m.Usage
			for _, c := range m.ToolCalls {
				v.ToolCalls = append(v.ToolCalls, listener.ToolCallInfo{ID: c.ID, Name: c.Name, Arguments: s(c.Arguments)})
			}
		case session.RoleTool:
			v.CallID, v.Name, v.Error = m.ToolCallID, m.Name, m.IsError()
		case session.RoleSummary:
			if m.Compaction != nil {
				v.Summarized = m.Compaction.Messages
			}
		}
		out = append(out, v)
	}
	return out
}
