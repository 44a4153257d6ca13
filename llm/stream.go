package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/chatrepl/chat/session"
)

// wireChunk is the part of a streamed chunk we read. It is decoded by us,
// not by go-openai's types, so the field names servers disagree on
// (reasoning_content / reasoning, content as text or parts, a missing
// index) all arrive.
type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content          flexText `json:"content"`
			ReasoningContent flexText `json:"reasoning_content"`
			Reasoning        flexText `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string   `json:"name"`
					Arguments flexText `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// flexText takes a JSON string, null, or an array of content parts
// ({"type":"text","text":…}); thinking parts go to Thinking.
type flexText struct {
	Text     string
	Thinking string
}

func (f *flexText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
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
	ctx, slot := withRetrySlot(ctx)
	if noStream {
		return c.single(ctx, wire, slot, h)
	}
	stream, err := c.oa.CreateChatCompletionStream(ctx, wire)
	if err != nil {
		return resp, false, c.wrap(ctx, err, slot)
	}
	defer stream.Close()

	var (
		text, reasoning strings.Builder
		calls           Assembler
		finished        bool
	)
	emit := func(ch Chunk) error {
		started = true
		if h.Chunk == nil {
			return nil
		}
		return h.Chunk(ch)
	}
	defer func() {
		resp.Content, resp.Reasoning, resp.ToolCalls = text.String(), reasoning.String(), calls.Calls()
	}()
	for {
		raw, rerr := stream.RecvRaw()
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return resp, started, c.wrap(ctx, rerr, slot)
		}
		var wc wireChunk
		if jerr := json.Unmarshal(raw, &wc); jerr != nil {
			return resp, started, fmt.Errorf("%w from %s: %v in %q", ErrMalformed, c.url, jerr, clip(raw, 120))
		}
		if wc.Error != nil {
			return resp, started, &APIError{URL: c.url, Message: wc.Error.Message, Type: wc.Error.Type, Code: fmt.Sprint(orEmpty(wc.Error.Code))}
		}
		if wc.Usage != nil {
			// Some servers send usage twice or on the finish chunk: the
			// last report is the count.
			resp.Usage = &session.Usage{Prompt: wc.Usage.Prompt, Completion: wc.Usage.Completion, Total: wc.Usage.Total}
		}
		for _, ch := range wc.Choices {
			d := ch.Delta
			if r := d.ReasoningContent.Text + d.Reasoning.Text + d.Content.Thinking; r != "" {
				reasoning.WriteString(r)
				if err := emit(Chunk{Kind: ChunkReasoning, Text: r}); err != nil {
					return resp, started, err
				}
			}
			if d.Content.Text != "" {
				text.WriteString(d.Content.Text)
				if err := emit(Chunk{Kind: ChunkText, Text: d.Content.Text}); err != nil {
					return resp, started, err
				}
			}
			for _, tc := range d.ToolCalls {
				delta := ToolCallDelta{Index: tc.Index, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments.Text}
				calls.Add(delta)
				if err := emit(Chunk{Kind: ChunkToolCall, ToolCall: delta}); err != nil {
					return resp, started, err
				}
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				finished = true
				resp.FinishReason = *ch.FinishReason
			}
		}
	}
	if !finished {
		return resp, started, fmt.Errorf("%w (from %s)", ErrStreamCut, c.url)
	}
	return resp, started, nil
}

// single is the --no-stream path: one JSON answer, replayed as chunks so
// listeners see the same shape either way.
func (c *Client) single(ctx context.Context, wire openai.ChatCompletionRequest, slot *retrySlot, h Handler) (Response, bool, error) {
	r, err := c.oa.CreateChatCompletion(ctx, wire)
	if err != nil {
		return Response{}, false, c.wrap(ctx, err, slot)
	}
	var resp Response
	if r.Usage.TotalTokens != 0 || r.Usage.PromptTokens != 0 {
		resp.Usage = &session.Usage{Prompt: r.Usage.PromptTokens, Completion: r.Usage.CompletionTokens, Total: r.Usage.TotalTokens}
	}
	if len(r.Choices) == 0 {
		return resp, false, fmt.Errorf("%w: %s answered without choices", ErrMalformed, c.url)
	}
	ch := r.Choices[0]
	resp.Content, resp.Reasoning, resp.FinishReason = ch.Message.Content, ch.Message.ReasoningContent, string(ch.FinishReason)
	var calls Assembler
	for _, tc := range ch.Message.ToolCalls {
		calls.Add(ToolCallDelta{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	resp.ToolCalls = calls.Calls()
	if h.Chunk != nil {
		if resp.Reasoning != "" {
			if err := h.Chunk(Chunk{Kind: ChunkReasoning, Text: resp.Reasoning}); err != nil {
				return resp, true, err
			}
		}
		if resp.Content != "" {
			if err := h.Chunk(Chunk{Kind: ChunkText, Text: resp.Content}); err != nil {
				return resp, true, err
			}
		}
	}
	return resp, true, nil
}

// wrap turns a transport error into ours; a cancelled context wins, so a
// Ctrl+C never reads as a network failure.
func (c *Client) wrap(ctx context.Context, err error, slot *retrySlot) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return classify(err, c.url, slot.after)
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
