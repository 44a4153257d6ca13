package synthesizer

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

// SummaryPrompt tells the model how to compact a conversation.
const SummaryPrompt = `You compact a conversation between a user and an AI assistant so it can go on within a limited context window.
You get the summary of what came before (if any) and a transcript of the part after it. Write one summary that replaces both.
Keep what the conversation needs to go on: the user's goals and requests, decisions, facts learned, names of files, functions, commands and URLs, tool results that still matter, errors and how they were solved, and what is still open or was promised.
Write compact notes in the language of the conversation, most important first. Do not answer the user; add nothing that is not in the transcript.`

// SummaryOptions wires one compaction.
type SummaryOptions struct {
	Client      *llm.Client
	Model       string
	Listeners   *listener.List // only retries are reported; the summary is not streamed
	Origin      listener.Origin
	Cancellable *control.Cancellable
	NoStream    bool
	// Budget is the tokens one summarizing request may carry: a history
	// larger than that is folded in parts, each on the summary so far.
	// 0 means the synthesizer's transcript limit.
	Budget int
	// Words bounds the summary's length (0: 400).
	Words int
	// MaxTokens, when set, is sent as the request's max_tokens: the room
	// the summary must fit in (a model that overruns its word limit is cut
	// by the server).
	MaxTokens int
	// Instructions are what the person asked the summary to keep.
	Instructions string
}

// Summarize folds history into one summary, starting from an earlier one
// (empty if none). It makes one request per part of history that fits
// Budget and returns the last summary and what all of them used.
func Summarize(ctx context.Context, o SummaryOptions, earlier string, history []session.Message) (string, session.Usage, error) {
	words := o.Words
	if words <= 0 {
		words = 400
	}
	partChars := maxTranscriptChars
	if o.Budget > 0 {
		// The request also carries the prompt, the summary so far and
		// room for the new one: about two tokens a word, each.
		partChars = max((o.Budget-300-4*words)*3, 2000)
	}
	summary := strings.TrimSpace(earlier)
	var used session.Usage
	for _, part := range parts(entries(history, partChars/2), partChars) {
		next, u, err := summarizePart(ctx, o, words, summary, part)
		used = used.Add(u)
		if err != nil {
			return "", used, err
		}
		summary = next
	}
	if summary == "" {
		return "", used, ErrNoAnswer
	}
	return summary, used, nil
}

// parts groups transcript entries into pieces of at most size bytes; an
// entry larger than that is trimmed to it.
func parts(entries []string, size int) []string {
	var out []string
	var b strings.Builder
	for _, e := range entries {
		e = trim(e, size)
		if b.Len() > 0 && b.Len()+len(e) > size {
			out = append(out, b.String())
			b.Reset()
		}
		b.WriteString(e)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

func summarizePart(ctx context.Context, o SummaryOptions, words int, earlier, transcript string) (string, session.Usage, error) {
	var prompt strings.Builder
	if earlier != "" {
		fmt.Fprintf(&prompt, "The summary of the conversation so far:\n<summary>\n%s\n</summary>\n\n", earlier)
	}
	fmt.Fprintf(&prompt, "The transcript of what came after it:\n<transcript>\n%s</transcript>\n\n", transcript)
	if o.Instructions != "" {
		fmt.Fprintf(&prompt, "The user asks the summary to: %s\n\n", o.Instructions)
	}
	fmt.Fprintf(&prompt, "Write the new summary now, in at most %d words.", words)
	req := llm.Request{Model: o.Model, NoStream: o.NoStream, MaxTokens: o.MaxTokens, Messages: []session.Message{
		session.System(SummaryPrompt), session.User(prompt.String()),
	}}
	resp, err := o.Client.Complete(ctx, req, llm.Handler{
		Chunk: func(llm.Chunk) error { return o.Cancellable.Check() },
		Retry: func(attempt int, wait time.Duration, err error) {
			o.Listeners.Emit(listener.Retry{Origin: o.Origin, Attempt: attempt, Wait: wait, Err: err})
		},
	})
	var used session.Usage
	if resp.Usage != nil {
		used = *resp.Usage
	}
	if cerr := o.Cancellable.Check(); cerr != nil {
		return "", used, cerr
	}
	if err != nil {
		return "", used, err
	}
	text := strings.TrimSpace(resp.Content)
	if text == "" {
		return "", used, ErrNoAnswer
	}
	return text, used, nil
}
