package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/chatrepl/chat/internal/rescue"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// holdBack puts a rescue.Holdback in front of the handler's text: what may
// be a call written as text is not shown while it streams.
func holdBack(h *llm.Handler) *rescue.Holdback {
	hold := &rescue.Holdback{}
	show := h.Chunk
	h.Chunk = func(ch llm.Chunk) error {
		if ch.Kind == llm.ChunkText {
			if ch.Text = hold.Add(ch.Text); ch.Text == "" {
				return nil
			}
		}
		return show(ch)
	}
	return hold
}

// rescue turns tool calls the model wrote as text into real ones, when
// they are exactly calls of offered tools with valid arguments; anything
// else held back is shown after all. The history then has the normal
// assistant-with-tool-calls form, and the calls go through the policy as
// any other.
func (t *turn) rescue(resp llm.Response, err error, offered []llm.ToolSpec, hold *rescue.Holdback) llm.Response {
	showHeld := func(text string) {
		if text != "" {
			t.emit(listener.AssistantDelta{Origin: t.origin, Text: text})
		}
	}
	if err != nil || len(resp.ToolCalls) > 0 {
		showHeld(hold.Held())
		return resp
	}
	found, ok := rescue.Parse(resp.Content, func(name string, args json.RawMessage) bool {
		i := slices.IndexFunc(offered, func(s llm.ToolSpec) bool { return s.Name == name })
		return i >= 0 && tool.CheckArgs(offered[i].Parameters, args) == nil
	})
	if !ok {
		showHeld(hold.Held())
		return resp
	}
	// What was shown stays; what the answer says around the calls and was
	// held back is shown now.
	if shown := strings.TrimSpace(hold.Shown()); strings.HasPrefix(found.Rest, shown) {
		showHeld(found.Rest[len(shown):])
	}
	resp.Content = found.Rest
	for _, c := range found.Calls {
		resp.ToolCalls = append(resp.ToolCalls, session.ToolCall{ID: "call_" + strings.ReplaceAll(session.NewID(), "-", ""), Name: c.Name, Arguments: c.Arguments})
	}
	resp.FinishReason = "tool_calls"
	t.emit(listener.Rescued{Origin: t.origin, Format: found.Format, Calls: len(found.Calls)})
	return resp
}
