package llm

import "github.com/chatrepl/chat/session"

// ToolCallDelta is one fragment of a streamed tool call. Index is nil when
// the server sent none (old Ollama sends whole calls without it).
type ToolCallDelta struct {
	Index     *int
	ID        string
	Name      string
	Arguments string
}

// Assembler builds whole tool calls from fragments: the id and name come on
// a call's first fragment only, arguments arrive in pieces, and fragments
// of several calls may interleave. Calls keep the order they first appeared.
type Assembler struct {
	calls   []session.ToolCall
	byIndex map[int]int // stream index -> position in calls
	args    [][]byte
}

// Add folds one fragment in.
func (a *Assembler) Add(d ToolCallDelta) {
	pos := -1
	switch {
	case d.Index != nil:
		if a.byIndex == nil {
			a.byIndex = map[int]int{}
		}
		p, ok := a.byIndex[*d.Index]
		// A new id at a known index is a new call from a server that
		// reuses index 0 for every call.
		if ok && (d.ID == "" || d.ID == a.calls[p].ID) {
			pos = p
		} else if ok && a.calls[p].ID == "" {
			pos = p
		} else {
			pos = a.open(d)
			a.byIndex[*d.Index] = pos
		}
	case d.ID != "" || len(a.calls) == 0:
		pos = a.open(d)
	default:
		pos = len(a.calls) - 1
	}
	c := &a.calls[pos]
	if c.ID == "" {
		c.ID = d.ID
	}
	if c.Name == "" {
		c.Name = d.Name
	}
	a.args[pos] = append(a.args[pos], d.Arguments...)
}

func (a *Assembler) open(d ToolCallDelta) int {
	a.calls = append(a.calls, session.ToolCall{ID: d.ID, Name: d.Name})
	a.args = append(a.args, nil)
	return len(a.calls) - 1
}

// Calls returns the assembled calls. A call the server sent without an id
// gets a generated one, so history can still pair it with its result.
func (a *Assembler) Calls() []session.ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]session.ToolCall, len(a.calls))
	for i, c := range a.calls {
		c.Arguments = string(a.args[i])
		if c.ID == "" {
			c.ID = "call_" + session.NewID()
		}
		out[i] = c
	}
	return out
}
