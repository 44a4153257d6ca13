package session

import (
	"time"

	"github.com/google/uuid"
)

// Role is who a message is from.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	// RoleSummary is a compaction record: never sent as a message of its
	// own, it stands (see Sent) for every message before it.
	RoleSummary Role = "summary"
)

// ErrorTypeInterrupted marks the placeholder result of a call that never ran.
const ErrorTypeInterrupted = "interrupted"

// InterruptedPlaceholder is the content of a healed tool result.
const InterruptedPlaceholder = "Tool call interrupted before completion."

// ToolCall is one call an assistant asked for. Arguments is the raw JSON
// text the model produced, kept verbatim even when it is not valid JSON.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Started: the call was approved and began to run. A started call
	// without a result is never run again (the process died while it
	// ran); see AnswerStarted.
	Started bool `json:"started,omitempty"`
}

// Usage is the token count of one completion.
type Usage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Total      int `json:"total_tokens"`
	// Cached is the part of Prompt the provider read from its prompt
	// cache (usage.prompt_tokens_details.cached_tokens), billed apart.
	Cached int `json:"cached_tokens,omitempty"`
}

// Add sums two counts.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Prompt + o.Prompt, u.Completion + o.Completion, u.Total + o.Total, u.Cached + o.Cached}
}

// FilePart is a file attached to a user message.
type FilePart struct {
	MediaType string `json:"media_type"`
	Filename  string `json:"filename,omitempty"`
	Data      []byte `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// Message is one entry of history. Which fields mean something depends on
// Role; the constructors below set the right ones.
type Message struct {
	ID   string    `json:"id,omitempty"`
	Role Role      `json:"role"`
	Time time.Time `json:"time"`

	Content string     `json:"content,omitempty"`
	Files   []FilePart `json:"files,omitempty"` // user
	// Context is what came with the person's message without being typed
	// (a hook's output, a ! command and its output): sent before Content,
	// not shown as part of it.
	Context string `json:"context,omitempty"` // user
	// Unanswered marks a user message whose turn ended with no answer (an
	// error, a cancel before any text, a crash): it is kept, but not sent
	// again unless the person re-sends it.
	Unanswered bool `json:"unanswered,omitempty"` // user
	// MidTurn marks text the person sent into a running turn (typed while
	// it ran, steered in by an editor or a page): part of that turn, never
	// a turn of its own (timelines, /rewind, /undo).
	MidTurn bool `json:"mid_turn,omitempty"` // user
	// Noted: the person was told, on a later load, that it was left
	// unanswered (said once).
	Noted bool `json:"noted,omitempty"` // user
	// Rewound marks a message taken out of the conversation by a rewind:
	// the file keeps it (Session.Rewound), nothing sends it.
	Rewound bool `json:"rewound,omitempty"`

	Reasoning   string     `json:"reasoning,omitempty"`   // assistant
	ToolCalls   []ToolCall `json:"tool_calls,omitempty"`  // assistant
	Usage       *Usage     `json:"usage,omitempty"`       // assistant
	Interrupted bool       `json:"interrupted,omitempty"` // assistant: cut short, shown partially
	Synthesized bool       `json:"synthesized,omitempty"` // assistant: written by the synthesizer
	Finish      string     `json:"finish,omitempty"`      // assistant: the server's finish_reason

	ToolCallID string `json:"tool_call_id,omitempty"` // tool
	Name       string `json:"name,omitempty"`         // tool
	Error      string `json:"error,omitempty"`        // tool
	ErrorType  string `json:"error_type,omitempty"`   // tool

	Compaction *Compaction `json:"compaction,omitempty"` // summary
}

// NewID returns a UUIDv7: unique and sortable by creation time.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil { // only when the system's random source fails
		return uuid.NewString()
	}
	return id.String()
}

func stamp(m Message) Message {
	m.ID = NewID()
	m.Time = time.Now().UTC()
	return m
}

// System returns a system message.
func System(content string) Message { return stamp(Message{Role: RoleSystem, Content: content}) }

// User returns a user message.
func User(content string, files ...FilePart) Message {
	return stamp(Message{Role: RoleUser, Content: content, Files: files})
}

// Assistant returns an assistant message.
func Assistant(content string, calls ...ToolCall) Message {
	return stamp(Message{Role: RoleAssistant, Content: content, ToolCalls: calls})
}

// ToolResult returns the answer to call.
func ToolResult(call ToolCall, content string) Message {
	return stamp(Message{Role: RoleTool, ToolCallID: call.ID, Name: call.Name, Content: content})
}

// ToolError returns a failed answer to call; content is what the model reads.
func ToolError(call ToolCall, content, errType string) Message {
	m := ToolResult(call, content)
	m.Error, m.ErrorType = content, errType
	return m
}

// IsError reports whether a tool message carries an error.
func (m Message) IsError() bool { return m.Error != "" || m.ErrorType != "" }
