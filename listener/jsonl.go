package listener

import (
	"encoding/json"
	"io"
	"sync"
)

// JSONL writes one JSON object per event and line (`chat -p --json`). It is
// shared by reference with sub-agents: the "agent" field tells them apart.
type JSONL struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSONL writes to w.
func NewJSONL(w io.Writer) *JSONL {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONL{enc: enc}
}

// Wire is an event as JSON: one line of `chat -p --json`, one SSE frame of
// `chat serve`.
type Wire struct {
	Type        string           `json:"type"`
	Agent       string           `json:"agent,omitempty"`
	Turn        uint64           `json:"turn,omitempty"` // none: not of a turn (a job, a notice)
	Text        string           `json:"text,omitempty"`
	MidLoop     bool             `json:"mid_loop,omitempty"`
	ID          string           `json:"id,omitempty"`
	Name        string           `json:"name,omitempty"`
	Arguments   string           `json:"arguments,omitempty"`
	Content     *string          `json:"content,omitempty"`
	Error       string           `json:"error,omitempty"`
	ToolCalls   []ToolCallInfo   `json:"tool_calls,omitempty"`
	Synthesized bool             `json:"synthesized,omitempty"`
	Finish      string           `json:"finish,omitempty"`
	Prompt      *int             `json:"prompt_tokens,omitempty"`
	Completion  *int             `json:"completion_tokens,omitempty"`
	Total       *int             `json:"total_tokens,omitempty"`
	Tokens      int              `json:"tokens,omitempty"`
	Reason      string           `json:"reason,omitempty"`
	Attempt     int              `json:"attempt,omitempty"`
	WaitMS      int64            `json:"wait_ms,omitempty"`
	Messages    int              `json:"messages,omitempty"`
	Before      int              `json:"tokens_before,omitempty"`
	After       int              `json:"tokens_after,omitempty"`
	Folded      int              `json:"tokens_folded,omitempty"`
	Summary     int              `json:"tokens_summary,omitempty"`
	Manual      bool             `json:"manual,omitempty"`
	Cached      int              `json:"cached_tokens,omitempty"`
	Cost        *float64         `json:"cost_usd,omitempty"`
	Format      string           `json:"format,omitempty"`
	Calls       int              `json:"calls,omitempty"`
	Steps       []PlanStep       `json:"steps,omitempty"`
	Job         int              `json:"job,omitempty"`
	State       string           `json:"state,omitempty"`
	Ended       bool             `json:"ended,omitempty"`
	Host        string           `json:"host,omitempty"`
	Port        int              `json:"port,omitempty"`
	Allowed     *bool            `json:"allowed,omitempty"`
	BytesUp     int64            `json:"bytes_up,omitempty"`
	BytesDown   int64            `json:"bytes_down,omitempty"`
	Diagnostics []DiagnosticFile `json:"diagnostics,omitempty"`
	Pending     []string         `json:"pending,omitempty"`
	ForModel    string           `json:"for_model,omitempty"`
	Model       string           `json:"model,omitempty"`
	Others      int              `json:"errors_elsewhere,omitempty"`
	ErrBefore   *int             `json:"errors_before,omitempty"`
	ErrAfter    *int             `json:"errors_after,omitempty"`
	WarnBefore  *int             `json:"warnings_before,omitempty"`
	WarnAfter   *int             `json:"warnings_after,omitempty"`
	Files       *int             `json:"files,omitempty"`
}

// OnEvent implements Listener.
func (j *JSONL) OnEvent(e Event) {
	v := WireOf(e)
	j.mu.Lock()
	_ = j.enc.Encode(v) // a closed stdout is not the agent's problem
	j.mu.Unlock()
}

// WireOf is e in its JSON form.
func WireOf(e Event) Wire {
	o := e.Source()
	v := Wire{Type: e.Kind(), Agent: o.Agent, Turn: o.Turn}
	switch e := e.(type) {
	case UserTurn:
		v.Content, v.MidLoop = &e.Content, e.MidLoop
	case ThinkingDelta:
		v.Text = e.Text
	case AssistantDelta:
		v.Text = e.Text
	case Thinking:
		v.Text = e.Text
	case Assistant:
		v.Text, v.ToolCalls, v.Synthesized, v.Finish = e.Text, e.ToolCalls, e.Synthesized, e.Finish
	case ToolCall:
		v.ID, v.Name, v.Arguments = e.ID, e.Name, e.Arguments
	case Plan:
		v.Text, v.Steps = e.Explanation, e.Steps
	case Job:
		v.ID, v.Job, v.Arguments, v.State, v.Text, v.Ended = e.CallID, e.ID, e.Command, e.State, e.Tail, e.Ended
	case Titled:
		v.Text = e.Title
	case Diagnostics:
		v.ID, v.Diagnostics, v.Others, v.Pending, v.ForModel = e.CallID, e.Files, e.Others, e.Pending, e.ForModel
	case DiagnosticsDelta:
		v.ErrBefore, v.ErrAfter, v.WarnBefore, v.WarnAfter, v.Files = &e.ErrorsBefore, &e.ErrorsAfter, &e.WarningsBefore, &e.WarningsAfter, &e.Files
		v.Text = e.DeltaText()
	case Network:
		v.Host, v.Port, v.Arguments, v.Allowed, v.Reason = e.Host, e.Port, e.Command, &e.Allowed, e.Reason
		v.BytesUp, v.BytesDown = e.Up, e.Down
	case ToolOutput:
		v.ID, v.Name, v.Text = e.ID, e.Name, e.Text
	case ToolResult:
		v.ID, v.Name, v.Content = e.ID, e.Name, &e.Content
		if e.Err != nil {
			v.Error = e.Err.Error()
		}
	case Usage:
		v.Prompt, v.Completion, v.Total = &e.Prompt, &e.Completion, &e.Total
		v.Model = e.Model
		v.Cached = e.Cached
		if e.Priced {
			v.Cost = &e.Cost
		}
	case ContextCap:
		v.Tokens = e.Tokens
	case Rescued:
		v.Format, v.Calls = e.Format, e.Calls
	case Compacting:
		v.Manual = e.Manual
	case Compacted:
		v.Messages, v.Before, v.After, v.Manual = e.Messages, e.Before, e.After, e.Manual
		v.Folded, v.Summary = e.Folded, e.Summary
	case FallbackNotice:
		v.Reason = e.Reason
	case Notice:
		v.Text = e.Text
	case Cancelled:
		v.Reason = e.Reason
	case Retry:
		v.Attempt, v.WaitMS = e.Attempt, e.Wait.Milliseconds()
		if e.Err != nil {
			v.Error = e.Err.Error()
		}
	case Error:
		if e.Err != nil {
			v.Error = e.Err.Error()
		}
	}
	return v
}
