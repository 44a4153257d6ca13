package acpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/listener"
)

// maxShownOutput bounds what a tool call shows in the editor (the model
// gets the tool's whole result as usual).
const maxShownOutput = 64 << 10

// events is a session's listener: the agent's events as session/update
// notifications. The main agent and its synthesizer speak in the
// conversation; a sub-agent's calls show as calls, its words as the
// result of the call that started it.
type events struct {
	out *outbox
	cwd string

	mu       sync.Mutex
	streamed map[string]bool   // by agent: its current message streamed
	output   map[string]string // by call: the running output so far
	open     []string          // calls started and not finished, in order
	jobs     map[string]bool   // calls that started a background job still running
	usage    turnUsage
	finish   string // the main agent's last finish_reason
	window   int
}

// turnUsage adds up a turn's completions.
type turnUsage struct{ prompt, completion, total, last int }

// speaks reports whether what agent says is the conversation's answer.
func speaks(agent string) bool { return agent == "" || agent == listener.SynthesizerID("") }

// OnEvent implements listener.Listener.
func (e *events) OnEvent(ev listener.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	agent := ev.Source().Agent
	switch ev := ev.(type) {
	case listener.AssistantDelta:
		if speaks(agent) && ev.Text != "" {
			e.streamed[agent] = true
			e.out.push(update{u: acp.UpdateAgentMessageText(ev.Text)})
		}
	case listener.ThinkingDelta:
		if speaks(agent) && ev.Text != "" {
			e.out.push(update{u: acp.UpdateAgentThoughtText(ev.Text)})
		}
	case listener.Assistant:
		if speaks(agent) {
			if !e.streamed[agent] && ev.Text != "" {
				e.out.push(update{u: acp.UpdateAgentMessageText(ev.Text)})
			}
			if agent == "" {
				e.finish = ev.Finish
			}
		}
		e.streamed[agent] = false
	case listener.UserTurn:
		if agent == "" && ev.MidLoop {
			e.out.push(update{u: acp.UpdateUserMessageText(ev.Content)})
		}
	case listener.ToolCall:
		e.open = append(e.open, callID(agent, ev.ID))
		e.out.push(update{u: startCall(agent, ev.ID, ev.Name, ev.Arguments, e.cwd)})
	case listener.ToolOutput:
		id := callID(agent, ev.ID)
		shown := clipTail(e.output[id]+ev.Text, maxShownOutput)
		e.output[id] = shown
		e.out.push(update{key: "output " + id, u: acp.UpdateToolCall(acp.ToolCallId(id),
			acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(fence(shown)))}))})
	case listener.ToolResult:
		id := callID(agent, ev.ID)
		delete(e.output, id)
		e.open = slices.DeleteFunc(e.open, func(o string) bool { return o == id })
		if e.jobs[id] && ev.Err == nil {
			// A background job: the call goes on as long as the job runs,
			// its output shown as it comes (listener.Job).
			e.out.push(jobUpdate(id, acp.ToolCallStatusInProgress, ev.Content))
			break
		}
		e.out.push(update{u: endCall(id, ev.Name, ev.Content, ev.Err)})
	case listener.Job:
		// The main agent's jobs, on their calls (a sub-agent's call ids are
		// its own: its jobs show in /ps, not here).
		id := ev.CallID
		switch {
		case id == "":
		case !ev.Ended:
			if e.jobs == nil {
				e.jobs = map[string]bool{}
			}
			if _, seen := e.jobs[id]; !seen || e.jobs[id] {
				e.jobs[id] = true
				if ev.Tail != "" {
					e.out.push(jobUpdate(id, acp.ToolCallStatusInProgress, fmt.Sprintf("job %d · %s\n%s", ev.ID, ev.State, ev.Tail)))
				}
			}
		case e.jobs[id]:
			e.jobs[id] = false
			status := acp.ToolCallStatusCompleted
			if strings.HasPrefix(ev.State, "failed") || (strings.HasPrefix(ev.State, "exited ") && ev.State != "exited 0") {
				status = acp.ToolCallStatusFailed
			}
			e.out.push(jobUpdate(id, status, fmt.Sprintf("job %d · %s\n%s", ev.ID, ev.State, ev.Tail)))
		}
	case listener.Usage:
		if speaks(agent) {
			e.usage.prompt += ev.Prompt
			e.usage.completion += ev.Completion
			e.usage.total += ev.Total
			if agent == "" {
				e.usage.last = ev.Total
				e.pushWindow()
			}
		}
	case listener.ContextCap:
		e.window = ev.Tokens
		e.pushWindow()
	case listener.Notice:
		e.note(ev.Text)
	case listener.Network:
		if !ev.Allowed { // an allowed one is the command's business; a refusal the person may want to undo
			e.note(ev.Refusal())
		}
	case listener.FallbackNotice:
		if agent == "" {
			e.note("The step budget ran out (" + ev.Reason + "); the answer is written from what was gathered.")
		}
	case listener.Plan:
		if agent == "" { // the editor draws the session's own list
			e.out.push(update{u: planUpdate(ev)})
		}
	case listener.Compacted:
		e.note(listener.CompactedText(ev))
	case listener.DiagnosticsDelta:
		// A call's own diagnostics are in its result; the turn's end says
		// whether it left the files worse.
		e.note("diagnostics: " + ev.DeltaText())
	case listener.Retry:
		e.note(fmt.Sprintf("retrying in %s (attempt %d): %v", ev.Wait.Round(1e8), ev.Attempt, ev.Err))
	}
}

// note is something for the person that is not the answer: it goes out
// as a thought, which editors show apart from the answer.
func (e *events) note(text string) {
	e.out.push(update{u: acp.UpdateAgentThoughtText("\n" + text + "\n")})
}

// pushWindow tells the editor how full the context window is.
func (e *events) pushWindow() {
	if e.window <= 0 || e.usage.last <= 0 {
		return
	}
	e.out.push(update{key: "usage", u: acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{
		SessionUpdate: "usage_update", Used: e.usage.last, Size: e.window}}})
}

// beginTurn resets what a turn adds up; endTurn returns it.
func (e *events) beginTurn() {
	e.mu.Lock()
	e.usage, e.finish = turnUsage{}, ""
	e.mu.Unlock()
}

// closeOpen ends the calls the turn started and never finished (it was
// cancelled while one waited for permission or ran): the editor would
// show them pending for ever.
func (e *events) closeOpen() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range e.open {
		delete(e.output, id)
		e.out.push(update{u: acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(acp.ToolCallStatusFailed),
			acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock("cancelled: the turn ended before this call finished"))}))})
	}
	e.open = nil
}

func (e *events) endTurn() (turnUsage, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.usage, e.finish
}

// callID is the editor's id of a call: a sub-agent's own ids may repeat
// its caller's.
func callID(agent, id string) string {
	if agent == "" {
		return id
	}
	return agent + "/" + id
}

// startCall is the tool_call update of a call about to run.
func startCall(agent, id, name, arguments, cwd string) acp.SessionUpdate {
	var args map[string]any
	_ = json.Unmarshal([]byte(arguments), &args)
	title := callTitle(name, args)
	if agent != "" {
		title = agent + " · " + title
	}
	opts := []acp.ToolCallStartOpt{acp.WithStartKind(toolKind(name)), acp.WithStartStatus(acp.ToolCallStatusPending)}
	if args != nil {
		opts = append(opts, acp.WithStartRawInput(args))
	}
	if p, ok := args["path"].(string); ok && p != "" {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		opts = append(opts, acp.WithStartLocations([]acp.ToolCallLocation{{Path: abs}}))
		if d, ok := diffOf(name, abs, args); ok {
			opts = append(opts, acp.WithStartContent([]acp.ToolCallContent{d}))
		}
	}
	return acp.StartToolCall(acp.ToolCallId(callID(agent, id)), title, opts...)
}

// diffOf shows an edit as the diff it proposes.
func diffOf(name, abs string, args map[string]any) (acp.ToolCallContent, bool) {
	switch name {
	case "write_file":
		if content, ok := args["content"].(string); ok {
			return acp.ToolDiffContent(abs, content), true
		}
	case "edit_file":
		old, _ := args["old_string"].(string)
		if n, ok := args["new_string"].(string); ok {
			return acp.ToolDiffContent(abs, n, old), true
		}
	}
	return acp.ToolCallContent{}, false
}

// endCall is the tool_call_update of a finished call.
func endCall(id, name, content string, err error) acp.SessionUpdate {
	status := acp.ToolCallStatusCompleted
	if err != nil {
		status = acp.ToolCallStatusFailed
		if content == "" {
			content = err.Error()
		}
	}
	shown := clip.String(content, maxShownOutput)
	if name == "run_shell" || name == "read_file" {
		shown = fence(shown)
	}
	opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(status), acp.WithUpdateRawOutput(map[string]any{"content": clip.String(content, maxShownOutput)})}
	if shown != "" {
		opts = append(opts, acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(shown))}))
	}
	return acp.UpdateToolCall(acp.ToolCallId(id), opts...)
}

// toolKind is how the editor draws a call.
func toolKind(name string) acp.ToolKind {
	switch name {
	case "read_file", "list_files", "skill":
		return acp.ToolKindRead
	case "write_file", "edit_file":
		return acp.ToolKindEdit
	case "grep":
		return acp.ToolKindSearch
	case "run_shell":
		return acp.ToolKindExecute
	case "fetch_url":
		return acp.ToolKindFetch
	case "agent":
		return acp.ToolKindThink
	}
	return acp.ToolKindOther
}

// callTitle is a call in a few words: what it does to what.
func callTitle(name string, args map[string]any) string {
	for _, key := range []string{"command", "path", "pattern", "url", "task", "name"} {
		if v, ok := args[key].(string); ok && v != "" {
			return name + ": " + clip.String(strings.Join(strings.Fields(v), " "), 120)
		}
	}
	return name
}

// fence shows output as preformatted text.
func fence(s string) string {
	if s == "" {
		return ""
	}
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks
}

// clipTail keeps the last max bytes of s, on a line start when it can.
func clipTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 200 {
		s = s[i+1:]
	}
	return "…\n" + s
}

// planUpdate is the agent's task list as the protocol's plan: the whole
// list each time, as the protocol wants.
func planUpdate(p listener.Plan) acp.SessionUpdate {
	entries := make([]acp.PlanEntry, len(p.Steps))
	for i, s := range p.Steps {
		entries[i] = acp.PlanEntry{Content: s.Step, Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatus(s.Status)}
	}
	return acp.UpdatePlan(entries...)
}

// jobUpdate is a background job's call with status and text: one key per
// call, so a slow editor gets only the job's latest state.
func jobUpdate(id string, status acp.ToolCallStatus, text string) update {
	return update{key: "job " + id, u: acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(fence(text)))}))}
}
