package listener

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Origin says who emitted an event and in which turn.
type Origin struct {
	Agent string
	Turn  uint64
}

// Event is one of the types below.
type Event interface {
	Source() Origin
	// Kind is the event's stable name, as used by the JSONL listener.
	Kind() string
}

// Source implements Event for every type that embeds Origin.
func (o Origin) Source() Origin { return o }

// ToolCallInfo is a tool call as the listeners see it.
type ToolCallInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type (
	// UserTurn is a user message entering history; MidLoop marks text that
	// the person sent while the turn was running.
	UserTurn struct {
		Origin
		Content string
		MidLoop bool
		// Input is the Interloper item the text was (0: none), so a host
		// knows which of its queued items the agent took.
		Input uint64
	}
	// ThinkingDelta is a piece of streamed reasoning.
	ThinkingDelta struct {
		Origin
		Text string
	}
	// AssistantDelta is a piece of streamed answer text.
	AssistantDelta struct {
		Origin
		Text string
	}
	// Thinking is the whole reasoning of one completion.
	Thinking struct {
		Origin
		Text string
	}
	// Assistant is one complete assistant message. Finish is the server's
	// finish_reason ("stop", "length", "tool_calls" …) when it sent one.
	Assistant struct {
		Origin
		Text        string
		ToolCalls   []ToolCallInfo
		Synthesized bool
		Finish      string
	}
	// ToolCall is emitted just before a tool runs (or is refused).
	ToolCall struct {
		Origin
		ID, Name, Arguments string
	}
	// ToolOutput is output a running tool produced (run_shell streams it).
	ToolOutput struct {
		Origin
		ID, Name, Text string
	}
	// ToolResult is a tool's answer; Err is set when the tool failed.
	ToolResult struct {
		Origin
		ID, Name, Content string
		Err               error
	}
	// Usage is the token count of one completion as the server reported it
	// (Cached: prompt tokens read from the provider's cache), and its cost
	// in US dollars when the model's price is known (Priced).
	Usage struct {
		Origin
		Model                             string // the model that answered ("" when not said)
		Prompt, Completion, Total, Cached int
		Cost                              float64
		Priced                            bool
	}
	// ContextCap is the model's context window, once known.
	ContextCap struct {
		Origin
		Tokens int
	}
	// Compacting says the conversation is being summarized to fit the
	// context window (Manual: the person asked, /compact).
	Compacting struct {
		Origin
		Manual bool
	}
	// Compacted says it was: Messages were folded into a summary and what
	// is sent went from Before to After tokens (estimates).
	Compacted struct {
		Origin
		// Before and After are the next request's size around the
		// compaction; Folded is what the folded messages took, Summary
		// what the summary takes instead (all estimates, in tokens).
		Messages, Before, After int
		Folded, Summary         int
		Manual                  bool
		// Cut: the summary was cut to fit; Dropped: the messages were left
		// out unsummarized, as no summary left room.
		Cut, Dropped bool
	}
	// FallbackNotice says the step budget ran out and a synthesized answer follows.
	FallbackNotice struct {
		Origin
		Reason string
	}
	// Cancelled ends a turn the person stopped.
	Cancelled struct {
		Origin
		Reason string
	}
	// Retry announces a wait before trying a request again.
	Retry struct {
		Origin
		Attempt int
		Wait    time.Duration
		Err     error
	}
	// Notice is something for the person that is not the conversation:
	// what a hook said, or that it failed.
	Notice struct {
		Origin
		Text string
	}
	// Rescued says the model wrote tool calls as text (Format: "hermes",
	// "mistral", "llama3", "json") and they were turned into real calls.
	Rescued struct {
		Origin
		Format string
		Calls  int
	}
	// Error ends a turn that failed.
	Error struct {
		Origin
		Err error
	}
	// Plan is the agent's task list as it just set it (update_plan): every
	// step with its status.
	Plan struct {
		Origin
		Explanation string
		Steps       []PlanStep
	}
	// Job is a background job that started, printed (at most a few times a
	// second) or ended: its state and its last lines. Not tied to a turn
	// (Turn 0): a job outlives the turn that started it.
	Job struct {
		Origin
		CallID      string // the run_shell call that started it
		ID          int
		Command     string
		State, Tail string
		Ended       bool
	}
	// Network is one connection a boxed command asked for through chat's
	// proxy: allowed (with what it carried, once it ended) or refused
	// (and why). Not tied to a turn: a job may ask at any time.
	Network struct {
		Origin
		Host     string
		Port     int
		Command  string // who asked, where it was found
		Allowed  bool
		Reason   string
		Up, Down int64 // bytes sent and received
	}
	// Diagnostics is what the language servers said of the files a call
	// changed (CallID), once their verdicts settled: each file's errors
	// and warnings, the errors they know of in other files, and the
	// servers that gave no verdict within the bound.
	Diagnostics struct {
		Origin
		CallID  string
		Files   []DiagnosticFile
		Others  int // errors in files the call did not touch
		Pending []string
		// ForModel is what the call's result got of it (appended after a
		// blank line), so a front end can show the tool's own words apart.
		ForModel string
	}
	// DiagnosticsDelta ends a turn that touched files a language server
	// took: their errors and warnings when the turn first touched them
	// and now, and how many of them have any now.
	DiagnosticsDelta struct {
		Origin
		ErrorsBefore, ErrorsAfter     int
		WarningsBefore, WarningsAfter int
		Files                         int
	}
	// Titled says the session got a title (a model wrote it after the
	// first turn). Not tied to a turn.
	Titled struct {
		Origin
		Title string
	}
	// TurnDone is always the last event of a turn, whatever its outcome.
	TurnDone struct {
		Origin
	}
)

func (UserTurn) Kind() string         { return "user_turn" }
func (ThinkingDelta) Kind() string    { return "thinking_delta" }
func (AssistantDelta) Kind() string   { return "assistant_delta" }
func (Thinking) Kind() string         { return "thinking" }
func (Assistant) Kind() string        { return "assistant" }
func (ToolCall) Kind() string         { return "tool_call" }
func (ToolOutput) Kind() string       { return "tool_output" }
func (ToolResult) Kind() string       { return "tool_result" }
func (Usage) Kind() string            { return "usage" }
func (ContextCap) Kind() string       { return "context_cap" }
func (Compacting) Kind() string       { return "compacting" }
func (Compacted) Kind() string        { return "compacted" }
func (FallbackNotice) Kind() string   { return "fallback_notice" }
func (Cancelled) Kind() string        { return "cancelled" }
func (Retry) Kind() string            { return "retry" }
func (Notice) Kind() string           { return "notice" }
func (Error) Kind() string            { return "error" }
func (Rescued) Kind() string          { return "rescued" }
func (TurnDone) Kind() string         { return "turn_done" }
func (Plan) Kind() string             { return "plan" }
func (Job) Kind() string              { return "job" }
func (Network) Kind() string          { return "network" }
func (Diagnostics) Kind() string      { return "diagnostics" }
func (Titled) Kind() string           { return "title" }
func (DiagnosticsDelta) Kind() string { return "diagnostics_delta" }

// DiagnosticFile is one file's errors and warnings, as a language
// server said them: Path relative to the working directory.
type DiagnosticFile struct {
	Path     string   `json:"path"`
	Server   string   `json:"server"`
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Lines    []string `json:"lines,omitempty"` // "12:5 error: undefined: x (compiler)", errors first
}

// DeltaText says what a turn did to the diagnostics: "errors 0 → 3 in 2
// files" (warnings said when they changed).
func (d DiagnosticsDelta) DeltaText() string {
	text := fmt.Sprintf("errors %d → %d", d.ErrorsBefore, d.ErrorsAfter)
	if d.WarningsBefore != d.WarningsAfter {
		text += fmt.Sprintf(", warnings %d → %d", d.WarningsBefore, d.WarningsAfter)
	}
	if d.Files > 0 {
		text += fmt.Sprintf(" in %d file%s", d.Files, plural(d.Files))
	}
	return text
}

// DiagnosticsText is a call's diagnostics in a few lines: a file a line
// ("main.go: 2 errors (gopls)") with its first diagnostics under it; ""
// when every file is clean and no server is pending.
func DiagnosticsText(d Diagnostics) string {
	var b strings.Builder
	for _, f := range d.Files {
		if f.Errors+f.Warnings == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %s (%s)\n", f.Path, countText(f.Errors, f.Warnings), f.Server)
		for i, l := range f.Lines {
			if i == 3 {
				fmt.Fprintf(&b, "  … %d more\n", len(f.Lines)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", oneLine(l, 200))
		}
	}
	if d.Others > 0 {
		fmt.Fprintf(&b, "%d error%s in other files\n", d.Others, plural(d.Others))
	}
	if b.Len() == 0 && len(d.Pending) > 0 {
		fmt.Fprintf(&b, "%s: no diagnostics yet\n", strings.Join(d.Pending, ", "))
	}
	return strings.TrimRight(b.String(), "\n")
}

func countText(errors, warnings int) string {
	var parts []string
	if errors > 0 {
		parts = append(parts, fmt.Sprintf("%d error%s", errors, plural(errors)))
	}
	if warnings > 0 {
		parts = append(parts, fmt.Sprintf("%d warning%s", warnings, plural(warnings)))
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// PlanStep is one step of a task list; Status is "pending",
// "in_progress" or "completed".
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// PlanMark is how a step's status is drawn in a checklist.
func PlanMark(status string) string {
	switch status {
	case "completed":
		return "✔"
	case "in_progress":
		return "▸"
	}
	return "○"
}

// PlanText is a task list as plain lines, one step each, made inert.
func PlanText(steps []PlanStep) string {
	var b strings.Builder
	done := 0
	for _, s := range steps {
		if s.Status == "completed" {
			done++
		}
	}
	fmt.Fprintf(&b, "plan (%d of %d done)", done, len(steps))
	for _, s := range steps {
		b.WriteString("\n  " + PlanMark(s.Status) + " " + oneLine(VisibleString(s.Step), 200))
	}
	return b.String()
}

// CompactedText is how front ends announce a compaction.
func CompactedText(e Compacted) string {
	// Like with like: the history folded against what stands for it; the
	// next request's size after it.
	switch {
	case e.Dropped:
		return fmt.Sprintf("⇣ left out %d earlier messages (~%d tokens; they stay in the session file): even a summary did not fit the context window · the next request ~%d", e.Messages, e.Folded, e.After)
	case e.Cut:
		return fmt.Sprintf("⇣ compacted %d earlier messages (~%d tokens) into a summary cut to fit (~%d) · the next request ~%d", e.Messages, e.Folded, e.Summary, e.After)
	}
	return fmt.Sprintf("⇣ compacted %d earlier messages (~%d tokens) into a summary (~%d) · the next request ~%d", e.Messages, e.Folded, e.Summary, e.After)
}

// RescuedText is how front ends announce rescued calls.
func RescuedText(e Rescued) string {
	calls := "a tool call"
	if e.Calls > 1 {
		calls = fmt.Sprintf("%d tool calls", e.Calls)
	}
	return fmt.Sprintf("the model wrote %s as text (%s); it runs as a real call", calls, e.Format)
}

// Refusal says a refused connection in one line, for a person.
func (n Network) Refusal() string {
	s := "✗ the sandbox refused " + net.JoinHostPort(n.Host, strconv.Itoa(n.Port))
	if n.Command != "" {
		s += " (asked by: " + n.Command + ")"
	}
	return s + ": " + n.Reason
}
