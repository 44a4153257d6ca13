package acpserver

import (
	"errors"
	"path/filepath"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/session"
)

// replay is a saved conversation as the updates that would have shown it:
// the person's messages, the answers, their reasoning, and each call with
// its result. What the conversation no longer holds (a rewound message)
// and what it never showed (the system prompt) stay out.
func replay(msgs []session.Message, cwd string) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	for _, m := range msgs {
		if m.Rewound {
			continue
		}
		switch m.Role {
		case session.RoleUser:
			if m.Content != "" {
				out = append(out, acp.UpdateUserMessageText(m.Content))
			}
			for _, f := range m.Files {
				if filepath.IsAbs(f.Filename) {
					out = append(out, acp.UpdateUserMessage(acp.ResourceLinkBlock(filepath.Base(f.Filename), "file://"+f.Filename)))
				} else {
					out = append(out, acp.UpdateUserMessageText("(attached: "+f.Filename+")"))
				}
			}
		case session.RoleAssistant:
			if m.Reasoning != "" {
				out = append(out, acp.UpdateAgentThoughtText(m.Reasoning))
			}
			if m.Content != "" {
				out = append(out, acp.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				out = append(out, startCall("", c.ID, c.Name, c.Arguments, cwd))
			}
		case session.RoleTool:
			var err error
			if m.Error != "" {
				err = errors.New(m.Error)
			}
			out = append(out, endCall(m.ToolCallID, m.Name, m.Content, err))
		case session.RoleSummary:
			out = append(out, acp.UpdateAgentThoughtText("(earlier turns were summarized to fit the context window; the session file keeps them)"))
		}
	}
	return out
}
