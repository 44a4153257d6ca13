package session

// Merge joins consecutive messages of the same role into one, as strict
// servers want: contents are joined by a blank line, reasoning likewise,
// files and tool calls are concatenated. Tool messages never merge (each
// answers its own call). The input is not changed; ids and times of the
// first message of each run are kept.
func Merge(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == RoleUser && m.Unanswered {
			continue // never re-sent, never glued to the next question
		}
		n := len(out)
		if n == 0 || m.Role == RoleTool || out[n-1].Role != m.Role {
			out = append(out, m)
			continue
		}
		p := &out[n-1]
		p.Content = joinBlank(p.Content, joinBlank(m.Context, m.Content)) // its context goes before it
		p.Reasoning = joinBlank(p.Reasoning, m.Reasoning)
		if len(m.Files) > 0 {
			p.Files = append(append([]FilePart(nil), p.Files...), m.Files...)
		}
		if len(m.ToolCalls) > 0 {
			p.ToolCalls = append(append([]ToolCall(nil), p.ToolCalls...), m.ToolCalls...)
		}
		p.Interrupted = p.Interrupted || m.Interrupted
	}
	return out
}

func joinBlank(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
