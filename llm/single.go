package llm

import (
	"context"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// single is the --no-stream path: one JSON answer, replayed as chunks so
// listeners see the same shape either way.
func (c *Client) single(ctx context.Context, wire openai.ChatCompletionRequest, x *exchange, h Handler) (Response, bool, error) {
	if _, err := c.oa.CreateChatCompletion(ctx, wire); err != nil {
		return Response{}, false, c.wrap(ctx, err, x)
	}
	var wc wireBody[messageChoice]
	if err := json.Unmarshal(x.body, &wc); err != nil {
		return Response{}, false, fmt.Errorf("%w: %s answered with %v in %q", ErrMalformed, c.url, err, clipBytes(x.body, 120))
	}
	if err := wc.apiError(c.url); err != nil {
		return Response{}, false, err
	}
	resp := Response{Usage: wc.Usage.session()}
	if len(wc.Choices) == 0 {
		return resp, false, fmt.Errorf("%w: %s answered without choices", ErrMalformed, c.url)
	}
	ch := wc.Choices[0]
	resp.Content, resp.Reasoning = ch.Message.Content.Text, ch.Message.reasoning()
	if resp.Reasoning == "" {
		var th inlineThink
		r, x := th.split(resp.Content)
		r2, x2 := th.flush()
		resp.Reasoning, resp.Content = r+r2, x+x2
	}
	if ch.FinishReason != nil {
		resp.FinishReason = *ch.FinishReason
	}
	var calls Assembler
	for _, tc := range ch.Message.ToolCalls {
		d := tc.delta()
		d.Index = nil // whole calls: each one is its own, whatever its index says
		calls.Add(d)
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
