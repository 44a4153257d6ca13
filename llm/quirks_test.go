package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestQuirks covers the quirks of testdata/real-streams/SOURCES.md that no
// recording shows whole; the recorded ones are replayed by the agent's
// TestRecordedFixtures. Numbers are the quirk numbers of SOURCES.md.
func TestQuirks(t *testing.T) {
	t.Parallel()
	frame := func(json string) string { return "data: " + json + "\n\n" }
	done := "data: [DONE]\n\n"
	tests := []struct {
		name   string
		body   string
		text   string
		calls  string
		finish string
	}{
		{"18: first tool fragment without an arguments key (vLLM)",
			frame(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-1","type":"function","index":0,"function":{"name":"run_command"}}]}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"cmd\":"}}]}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]},"finish_reason":"tool_calls"}]}`) + done,
			"", `chatcmpl-tool-1 run_command {"cmd":"ls"}`, "tool_calls"},
		{"10: finish_reason on a chunk that still carries text, then again",
			frame(`{"choices":[{"index":0,"delta":{"content":"Hello"}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"length"}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}]}`) + done,
			"Hello world", "", "length"},
		{"content empty, null and missing",
			frame(`{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"content":""}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{}}]}`) +
				frame(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`) + done,
			"ok", "", "stop"},
		{"finish_reason never sent, but [DONE]",
			frame(`{"choices":[{"index":0,"delta":{"content":"fine"}}]}`) + done,
			"fine", "", ""},
		{"16: fragments without index, continued",
			frame(`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}`) +
				frame(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}`) +
				frame(`{"choices":[{"delta":{},"finish_reason":"stop"}]}`) + done,
			"", `a f {"x":1}`, "stop"},
		{"7: usage chunk with empty choices between frames",
			frame(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`) +
				frame(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`) + done,
			"a", "", "stop"},
		{"6: the body ends in a single newline, no [DONE]",
			strings.TrimSuffix(frame(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`), "\n"),
			"x", "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, oaitest.Raw{Body: tt.body})
			var c collect
			resp, err := newClient(srv).Complete(context.Background(), ask("x"), c.handler())
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, call := range resp.ToolCalls {
				calls = append(calls, call.ID+" "+call.Name+" "+call.Arguments)
			}
			if resp.Content != tt.text || c.text.String() != tt.text || strings.Join(calls, "|") != tt.calls || resp.FinishReason != tt.finish {
				t.Fatalf("text %q calls %v finish %q", resp.Content, calls, resp.FinishReason)
			}
		})
	}
}
