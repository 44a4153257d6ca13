package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/internal/textbuf"
	"github.com/chatrepl/chat/session"
)

// wireBody is the part of an answer we read: a streamed chunk (its
// choices carry a delta, deltaChoice) or a whole completion (a message,
// messageChoice). It is decoded by us, not by go-openai's types, so the
// field names servers disagree on (reasoning_content / reasoning, content
// as text or parts, a missing index) all arrive. The choice type is a
// parameter so a chunk, decoded 20,000 times an answer, carries no unused
// message field.
type wireBody[C deltaChoice | messageChoice] struct {
	Choices []C        `json:"choices"`
	Usage   *wireUsage `json:"usage"`
	Error   *wireError `json:"error"`
}

type deltaChoice struct {
	Delta        wireMessage `json:"delta"`
	FinishReason *string     `json:"finish_reason"`
}

type messageChoice struct {
	Message      wireMessage `json:"message"`
	FinishReason *string     `json:"finish_reason"`
}

// apiError is the error the body carries, nil when it carries none.
func (b *wireBody[C]) apiError(url string) error {
	if b.Error == nil {
		return nil
	}
	return &APIError{URL: url, Message: b.Error.Message, Type: b.Error.Type, Code: fmt.Sprint(orEmpty(b.Error.Code))}
}

// wireMessage is a streamed delta or a whole message.
type wireMessage struct {
	Content          flexText       `json:"content"`
	ReasoningContent flexText       `json:"reasoning_content"`
	Reasoning        flexText       `json:"reasoning"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
}

// reasoning joins what servers send under their various names.
func (m wireMessage) reasoning() string {
	return m.ReasoningContent.Text + m.Reasoning.Text + m.Content.Thinking
}

type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string   `json:"name"`
		Arguments flexText `json:"arguments"`
	} `json:"function"`
}

func (tc wireToolCall) delta() ToolCallDelta {
	return ToolCallDelta{Index: tc.Index, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments.Text}
}

type wireUsage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Total      int `json:"total_tokens"`
	Details    *struct {
		Cached int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *wireUsage) session() *session.Usage {
	if u == nil {
		return nil
	}
	out := &session.Usage{Prompt: u.Prompt, Completion: u.Completion, Total: u.Total}
	if u.Details != nil {
		out.Cached = min(u.Details.Cached, u.Prompt)
	}
	return out
}

type wireError struct {
	Message  string `json:"message"`
	Type     string `json:"type"`
	Code     any    `json:"code"`
	Metadata struct {
		Raw string `json:"raw"`
	} `json:"metadata"`
	NCtx int `json:"n_ctx"` // llama.cpp, in exceed_context_size_error
	// NPrompt is the request's size as llama.cpp counted it.
	NPrompt int `json:"n_prompt_tokens"`
}

// flexText takes a JSON string, null, or an array of content parts
// ({"type":"text","text":…}); thinking parts go to Thinking.
type flexText struct {
	Text     string
	Thinking string
}

func (f *flexText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		// Most streamed pieces have no escapes: the bytes between the
		// quotes are the text, with no second decoding pass.
		if len(b) >= 2 && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
			f.Text = string(b[1 : len(b)-1])
			return nil
		}
		return json.Unmarshal(b, &f.Text)
	}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "thinking":
			var inner flexText
			if err := json.Unmarshal(p.Thinking, &inner); err == nil {
				f.Thinking += inner.Text
			}
		default:
			f.Text += p.Text
		}
	}
	return nil
}

// once makes one attempt. started reports whether any chunk reached h.
func (c *Client) once(ctx context.Context, wire openai.ChatCompletionRequest, noStream bool, h Handler) (resp Response, started bool, err error) {
	ctx, x := withExchange(ctx)
	if noStream {
		return c.single(ctx, wire, x, h)
	}
	stream, err := c.oa.CreateChatCompletionStream(ctx, wire)
	if err != nil {
		return resp, false, c.wrap(ctx, err, x)
	}
	defer stream.Close()

	var (
		text, reasoning textbuf.Builder
		calls           Assembler
		finished        bool
		chunks          = newChunkDecoder()
		batch           deltaBatch
		think           inlineThink
	)
	size := 0
	count := func(n int) error {
		if size += n; size > c.cfg.MaxAnswerBytes {
			return fmt.Errorf("%w: %s sent more than %d MiB in one answer; chat stopped reading it", ErrAnswerTooLarge, c.url, c.cfg.MaxAnswerBytes>>20)
		}
		return nil
	}
	emit := func(ch Chunk) error {
		started = true
		if h.Chunk == nil {
			return nil
		}
		return h.Chunk(ch)
	}
	flush := func() error {
		if ch, ok := batch.take(); ok {
			return emit(ch)
		}
		return nil
	}
	// pass puts a piece of text or reasoning in the batch, passing on
	// first a batch of the other kind.
	pass := func(kind ChunkKind, s string) error {
		if err := count(len(s)); err != nil {
			return err
		}
		if !batch.add(kind, s) {
			if err := flush(); err != nil {
				return err
			}
			batch.add(kind, s)
		}
		return nil
	}
	// passText passes on content, a <think> block at its start as
	// reasoning (think.go).
	passText := func(r, x string) error {
		if r != "" {
			reasoning.WriteString(r)
			if err := pass(ChunkReasoning, r); err != nil {
				return err
			}
		}
		if x != "" {
			text.WriteString(x)
			return pass(ChunkText, x)
		}
		return nil
	}
	// fail passes on what was read before the error, as it would have
	// been without the batch.
	fail := func(err error) (Response, bool, error) {
		_ = flush()
		return resp, started, err
	}
	defer func() {
		resp.Content, resp.Reasoning, resp.ToolCalls = text.String(), reasoning.String(), calls.Calls()
	}()
	for {
		raw, rerr := x.next(stream)
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return fail(c.wrap(ctx, rerr, x))
		}
		wc, jerr := chunks.decode(raw)
		if jerr != nil {
			return fail(fmt.Errorf("%w from %s: %v in %q", ErrMalformed, c.url, jerr, clipBytes(raw, 120)))
		}
		if err := wc.apiError(c.url); err != nil {
			return fail(err)
		}
		if wc.Usage != nil {
			// Some servers send usage twice or on the finish chunk: the
			// last report is the count.
			resp.Usage = wc.Usage.session()
		}
		for _, ch := range wc.Choices {
			d := ch.Delta
			if r := d.reasoning(); r != "" {
				reasoning.WriteString(r)
				if err := pass(ChunkReasoning, r); err != nil {
					return fail(err)
				}
			}
			if d.Content.Text != "" {
				if err := passText(think.split(d.Content.Text)); err != nil {
					return fail(err)
				}
			}
			for _, tc := range d.ToolCalls {
				delta := tc.delta()
				calls.Add(delta)
				if err := count(len(delta.Arguments)); err != nil {
					return fail(err)
				}
				if err := flush(); err != nil {
					return resp, started, err
				}
				if err := emit(Chunk{Kind: ChunkToolCall, ToolCall: delta}); err != nil {
					return resp, started, err
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finished = true
				resp.FinishReason = *ch.FinishReason
			}
		}
		if !x.eventReady() {
			if err := flush(); err != nil {
				return resp, started, err
			}
		}
	}
	if err := passText(think.flush()); err != nil {
		return fail(err)
	}
	if err := flush(); err != nil {
		return resp, started, err
	}
	// A clean end counts when the server said it was done: a finish_reason
	// (Cerebras sends no [DONE]) or [DONE] (some servers omit the reason).
	if !finished && !x.sawDone {
		return resp, started, fmt.Errorf("%w (from %s)", ErrStreamCut, c.url)
	}
	return resp, started, nil
}

// wrap turns a transport error into ours; a cancelled context wins, so a
// Ctrl+C never reads as a network failure.
func (c *Client) wrap(ctx context.Context, err error, x *exchange) error {
	return c.wrapAt(ctx, err, x, c.url)
}

// wrapAt is wrap for a request to another endpoint than chat completions.
func (c *Client) wrapAt(ctx context.Context, err error, x *exchange, url string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	err = classify(err, url, x)
	if api, ok := err.(*APIError); ok {
		api.NoKey = c.cfg.APIKey == ""
	}
	return err
}

func clipBytes(b []byte, n int) string { return clip.String(string(b[:min(len(b), n+4)]), n) }
