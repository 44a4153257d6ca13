package session

import "fmt"

// FillOrphans answers every unanswered tool call with the interrupted
// placeholder, inserted right after the other results of its assistant
// message. It returns the new slice (the input is not changed) and the ids
// it filled, in order.
func FillOrphans(msgs []Message) ([]Message, []string) {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var filled []string
	out := make([]Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		// Keep the results that follow, then fill what is missing, so the
		// block stays contiguous.
		for i+1 < len(msgs) && msgs[i+1].Role == RoleTool {
			i++
			out = append(out, msgs[i])
		}
		for _, c := range m.ToolCalls {
			if answered[c.ID] {
				continue
			}
			answered[c.ID] = true
			out = append(out, ToolError(c, InterruptedPlaceholder, ErrorTypeInterrupted))
			filled = append(filled, c.ID)
		}
	}
	return out, filled
}

// PruneOrphans makes a seeded history valid before its next request: it
// drops assistant messages whose calls are not all answered (and their
// partial results) and tool results without a call. The pending calls of
// the resume boundary, the last assistant message followed only by tool
// results, are kept, so Resume can run them.
func PruneOrphans(msgs []Message) []Message {
	boundary := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleAssistant {
			boundary = i
			break
		}
		if msgs[i].Role != RoleTool {
			break
		}
	}
	// A call id used again by a later assistant message (a damaged file)
	// makes that later message unusable: drop it.
	drop := map[int]bool{}
	used := map[string]bool{}
	for i, m := range msgs {
		if m.Role != RoleAssistant {
			continue
		}
		for _, c := range m.ToolCalls {
			if used[c.ID] {
				drop[i] = true
			}
		}
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	// A result counts only when it lies in the block right after its call.
	answeredBy := map[int]map[string]bool{}
	owner := map[string]int{}
	for i, m := range msgs {
		if m.Role == RoleAssistant && !drop[i] {
			for _, c := range m.ToolCalls {
				owner[c.ID] = i
			}
			answeredBy[i] = map[string]bool{}
			for j := i + 1; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
				answeredBy[i][msgs[j].ToolCallID] = true
			}
		}
	}
	for i, m := range msgs {
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 || i == boundary || drop[i] {
			continue
		}
		for _, c := range m.ToolCalls {
			if !answeredBy[i][c.ID] {
				drop[i] = true
				break
			}
		}
	}
	out := make([]Message, 0, len(msgs))
	seen := map[string]bool{}
	lastAssistant := -1
	for i, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			lastAssistant = i
			if drop[i] {
				continue
			}
		case RoleTool:
			o, ok := owner[m.ToolCallID]
			// The result must belong to the assistant block it sits in,
			// that assistant must be kept, and a call is answered once. A
			// result behind a user message needs no check of its own: its
			// assistant is kept only when every call was answered in the
			// block right after it (or it is the resume boundary, which
			// only results follow), so the call was seen already.
			if !ok || o != lastAssistant || drop[o] || seen[m.ToolCallID] {
				continue
			}
			seen[m.ToolCallID] = true
		}
		out = append(out, m)
	}
	return out
}

// PendingCalls returns the calls of the resume boundary that have no result.
func PendingCalls(msgs []Message) []ToolCall {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].Role == RoleTool {
		i--
	}
	if i < 0 || msgs[i].Role != RoleAssistant {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range msgs[i+1:] {
		answered[m.ToolCallID] = true
	}
	var out []ToolCall
	for _, c := range msgs[i].ToolCalls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// InterruptedWhileRunning answers a call that had started when the
// process running it stopped.
const InterruptedWhileRunning = "This call had started when chat stopped (it exited or was killed) while it ran. It was not run again, so it may have done part of its work: check its effects before running it again."

// SplitStarted parts pending calls into those that had started (never to
// run again) and those that never began (they may run now).
func SplitStarted(calls []ToolCall) (started, fresh []ToolCall) {
	for _, c := range calls {
		if c.Started {
			started = append(started, c)
		} else {
			fresh = append(fresh, c)
		}
	}
	return started, fresh
}

// Validate checks the tool-call invariant. With allowPending, the calls of
// the last assistant message may still be unanswered (a resume boundary).
func Validate(msgs []Message, allowPending bool) error {
	open := map[string]bool{}
	openAt := -1
	ids := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case RoleTool:
			if !open[m.ToolCallID] {
				return fmt.Errorf("message %d: tool result %q does not answer a pending call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		case RoleAssistant, RoleUser, RoleSystem, RoleSummary:
			// A summary stands for complete exchanges before it: it may not
			// sit between a call and its result either.
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(open) > 0 {
			return fmt.Errorf("message %d: %d tool call(s) of message %d have no result", i, len(open), openAt)
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" || ids[c.ID] {
				return fmt.Errorf("message %d: tool call id %q is empty or repeated", i, c.ID)
			}
			ids[c.ID] = true
			open[c.ID] = true
			openAt = i
		}
	}
	if len(open) > 0 && !allowPending {
		return fmt.Errorf("%d tool call(s) of message %d have no result", len(open), openAt)
	}
	return nil
}
