package synthesizer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/llm/emit"
	"github.com/chatrepl/chat/session"
)

// SystemPrompt tells the model what its one job is.
const SystemPrompt = `You are finishing a task that another assistant could not complete within its step budget.
You get the user's request and a transcript of the work done so far: messages, tool calls and their results.
Using only that evidence, write the best and most complete answer you can to the user's request.
Be direct. Where the evidence is incomplete, say what is known, what is missing and what to do next.
You cannot call tools. Do not describe the transcript or your process; answer the request.`

// Limits on the transcript, so it fits a modest context window.
const (
	maxResultChars     = 2000
	maxTranscriptChars = 60000
)

// ErrNoAnswer is a synthesizer completion with no text in it.
var ErrNoAnswer = errors.New("the synthesizer produced no answer")

// Options wires one synthesis.
type Options struct {
	Client      *llm.Client
	Model       string
	Listeners   *listener.List // forked for the synthesizer by the parent
	Cancellable *control.Cancellable
	Turn        uint64
	NoStream    bool
	// Window is the model's context size (0: unknown): the transcript is
	// cut to fit it, oldest part first.
	Window int
	// Price puts the answer's cost in its Usage event (nil: unpriced).
	Price emit.Price
	// Tasks is the task list the assistant left, in one line ("done: ….
	// left: …"; "" when it kept none): the answer says where it stands.
	Tasks string
}

// Run returns the synthesized assistant message (marked Synthesized).
func Run(ctx context.Context, o Options, request string, history []session.Message) (session.Message, error) {
	origin := listener.Origin{Agent: o.Listeners.ID(), Turn: o.Turn}
	req := llm.Request{
		Model:    o.Model,
		NoStream: o.NoStream,
		Messages: []session.Message{
			session.System(SystemPrompt),
			session.User(prompt(request, history, transcriptLimit(o.Window), o.Tasks)),
		},
	}
	resp, err := o.Client.Complete(ctx, req, emit.Handler(o.Listeners, origin, o.Cancellable))
	if cerr := o.Cancellable.Check(); cerr != nil {
		return session.Message{}, cerr
	}
	if err != nil {
		return session.Message{}, fmt.Errorf("synthesizer: %w", err)
	}
	if strings.TrimSpace(resp.Content) == "" {
		return session.Message{}, ErrNoAnswer
	}
	resp.ToolCalls = nil // none were offered; a server that sends some anyway is ignored
	msg := emit.AssistantMessage(resp)
	msg.Synthesized = true
	emit.Message(o.Listeners, origin, msg, cmp.Or(o.Model, o.Client.Model()), o.Price)
	return msg, nil
}

// Prompt is the user message of the synthesis: the request and the
// transcript of evidence.
func Prompt(request string, history []session.Message) string {
	return prompt(request, history, maxTranscriptChars, "")
}

func prompt(request string, history []session.Message, limit int, tasks string) string {
	p := "The user's request:\n<request>\n" + request + "\n</request>\n\nTranscript of the work so far:\n<transcript>\n" +
		transcript(history, limit) + "</transcript>\n\n"
	if tasks != "" {
		p += "The assistant's task list as it left it:\n<tasks>\n" + tasks + "\n</tasks>\n\n" +
			"Write the final answer to the request now, and say which of those tasks are done and which are left."
		return p
	}
	return p + "Write the final answer to the request now."
}

// transcriptLimit is how many bytes of transcript fit a window of tokens,
// leaving room for the prompt, the request and the answer (a quarter of
// the window); 0 is unknown.
func transcriptLimit(window int) int {
	if window <= 0 {
		return maxTranscriptChars
	}
	return min(max((window*3/4-400)*3, 2000), maxTranscriptChars)
}

// Transcript renders history as plain text. Long tool results are trimmed;
// when the whole is too long, the oldest part is dropped.
func Transcript(history []session.Message) string { return transcript(history, maxTranscriptChars) }

func transcript(history []session.Message, limit int) string {
	var b strings.Builder
	for _, e := range entries(history, maxResultChars) {
		b.WriteString(e)
	}
	s := b.String()
	if len(s) > limit {
		cut := runeStart(s, len(s)-limit)
		s = fmt.Sprintf("[… %d earlier characters omitted]\n", cut) + s[cut:]
	}
	return s
}

// entries renders each message as a transcript entry; tool results are
// trimmed to resultChars.
func entries(history []session.Message, resultChars int) []string {
	var out []string
	for _, m := range history {
		switch m.Role {
		case session.RoleSystem:
			out = append(out, fmt.Sprintf("[system instructions]\n%s\n\n", m.Content))
		case session.RoleSummary:
			out = append(out, fmt.Sprintf("[summary of the conversation before this point]\n%s\n\n", m.Content))
		case session.RoleUser:
			out = append(out, fmt.Sprintf("[user]\n%s\n\n", strings.TrimSpace(m.Context+"\n\n"+m.Content)))
		case session.RoleAssistant:
			if m.Content != "" {
				out = append(out, fmt.Sprintf("[assistant]\n%s\n\n", m.Content))
			}
			for _, c := range m.ToolCalls {
				out = append(out, fmt.Sprintf("[tool call %s] %s\n\n", c.Name, c.Arguments))
			}
		case session.RoleTool:
			label := "tool result"
			if m.IsError() {
				label = "tool error"
			}
			out = append(out, fmt.Sprintf("[%s %s]\n%s\n\n", label, m.Name, trim(m.Content, resultChars)))
		}
	}
	return out
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = runeStart(s, n)
	return s[:n] + fmt.Sprintf("\n[… %d more characters trimmed]", len(s)-n)
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
