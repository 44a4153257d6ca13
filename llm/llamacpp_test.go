package llm_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/llm"
)

// recorded serves a raw HTTP exchange recorded from a real server: its
// status, headers and body, byte for byte.
func recorded(t *testing.T, name string) oaitest.Reply {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "llama-server", name))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded bodies are stored de-chunked: take the bytes after the
	// header block as they are, and the status and headers from the head.
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("%s: no header block", name)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...))), nil)
	if err != nil {
		t.Fatal(err)
	}
	return oaitest.Func(func(w http.ResponseWriter, _ *http.Request, _ oaitest.Request) bool {
		for k, v := range resp.Header {
			if k != "Content-Length" && k != "Transfer-Encoding" && k != "Connection" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		_, err := w.Write(body)
		return err == nil
	})
}

// TestLlamaServer replays what llama.cpp's own llama-server answered.
func TestLlamaServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, text, reasoning, calls, finish, err string
		noStream, noKey                           bool
	}{
		{file: "01-chat-nonstream.response.http", text: "Hello! I am a tiny scripted test model.", reasoning: "The user wants a reply.\n", finish: "stop", noStream: true},
		{file: "02-chat-stream-usage.response.http", text: "Hello! I am a tiny scripted test model.", reasoning: "The user wants a reply.\n", finish: "stop"},
		{file: "03-chat-stream-no-usage.response.http", text: "Hello! I am a tiny scripted test model.", reasoning: "The user wants a reply.\n", finish: "stop"},
		{file: "04-tools-nonstream.response.http", reasoning: "I should call get_weather.\n", calls: `get_weather {"location": "Paris"}`, finish: "tool_calls", noStream: true},
		{file: "05-tools-stream-usage.response.http", reasoning: "I should call get_weather.\n", calls: `get_weather {"location": "Paris"}`, finish: "tool_calls"},
		{file: "07-after-tool-stream-usage.response.http", text: "The weather in Paris is sunny and 22 C.", finish: "stop"},
		{file: "09-length-stream-usage.response.http", text: "Hello! I am", reasoning: "The user wants a reply.\n", finish: "length"},
		{file: "12-ctx-exceeded-stream.response.http", err: "exceeds the available context size"},
		{file: "31-wrong-api-key.response.http", err: "the server refused the API key that was sent"},
		{file: "30-no-api-key.response.http", err: "the server wants an API key and none is set", noKey: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, recorded(t, tt.file))
			var c collect
			req := ask("x")
			req.NoStream = tt.noStream
			client := newClient(srv)
			if tt.noKey {
				client = llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
			}
			resp, err := client.Complete(context.Background(), req, c.handler())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if strings.Contains(tt.file, "ctx") && !strings.Contains(err.Error(), "context window") {
					t.Fatalf("no advice in %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range resp.ToolCalls {
				calls = append(calls, c.Name+" "+c.Arguments)
			}
			if resp.Content != tt.text || resp.Reasoning != tt.reasoning || strings.Join(calls, "|") != tt.calls || resp.FinishReason != tt.finish {
				t.Fatalf("got %q %q %v %q", resp.Content, resp.Reasoning, calls, resp.FinishReason)
			}
			if resp.Usage == nil && !strings.Contains(tt.file, "no-usage") {
				t.Fatal("usage lost")
			}
		})
	}
}
