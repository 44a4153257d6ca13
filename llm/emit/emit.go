// Package emit turns what llm produces into listener events, the same way
// for the agent loop and the synthesizer: deltas as they stream (checking
// the cancellable before each one), then the finished message's Thinking,
// Assistant and Usage events.
package emit

import (
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

// Handler streams chunks to ls as delta events. A chunk that arrives after
// Cancel is not shown: the person said stop, and the error it returns
// aborts the HTTP stream.
func Handler(ls *listener.List, o listener.Origin, c *control.Cancellable) llm.Handler {
	return llm.Handler{
		Chunk: func(ch llm.Chunk) error {
			if err := c.Check(); err != nil {
				return err
			}
			switch ch.Kind {
			case llm.ChunkText:
				ls.Emit(listener.AssistantDelta{Origin: o, Text: ch.Text})
			case llm.ChunkReasoning:
				ls.Emit(listener.ThinkingDelta{Origin: o, Text: ch.Text})
			}
			return nil
		},
		Retry: func(attempt int, wait time.Duration, err error) {
			ls.Emit(listener.Retry{Origin: o, Attempt: attempt, Wait: wait, Err: err})
		},
	}
}

// Price is what a completion's usage costs (ok false: not known).
type Price func(u session.Usage) (usd float64, ok bool)

// Message emits the events of one finished assistant message of model;
// price, when set, puts the cost in its Usage event.
func Message(ls *listener.List, o listener.Origin, m session.Message, model string, price Price) {
	if m.Reasoning != "" {
		ls.Emit(listener.Thinking{Origin: o, Text: m.Reasoning})
	}
	var calls []listener.ToolCallInfo
	for _, c := range m.ToolCalls {
		calls = append(calls, listener.ToolCallInfo{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	ls.Emit(listener.Assistant{Origin: o, Text: m.Content, ToolCalls: calls, Synthesized: m.Synthesized, Finish: m.Finish})
	if m.Usage != nil {
		Usage(ls, o, model, *m.Usage, price)
	}
}

// Usage emits what one completion of model used, priced when price is set
// (a summary's, a title's: completions that are no message of their own).
func Usage(ls *listener.List, o listener.Origin, model string, used session.Usage, price Price) {
	u := listener.Usage{Origin: o, Model: model, Prompt: used.Prompt, Completion: used.Completion, Total: used.Total, Cached: used.Cached}
	if price != nil {
		u.Cost, u.Priced = price(used)
	}
	ls.Emit(u)
}

// AssistantMessage builds the history entry for a completion.
func AssistantMessage(r llm.Response) session.Message {
	m := session.Assistant(r.Content, r.ToolCalls...)
	m.Reasoning = r.Reasoning
	m.Usage = r.Usage
	m.Finish = r.FinishReason
	return m
}
