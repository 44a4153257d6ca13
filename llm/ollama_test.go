package llm_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

// recordedOllama replays the server's side of a recorded exchange
// (testdata/ollama: ">>>" lines the client sent, "<<<" lines and the body
// after them what Ollama answered).
func recordedOllama(t *testing.T, name string) oaitest.Reply {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "ollama", name))
	if err != nil {
		t.Fatal(err)
	}
	_, answer, ok := strings.Cut(string(raw), "\n<<< ")
	if !ok {
		t.Fatalf("%s: no answer", name)
	}
	answer = "<<< " + answer
	head, body, _ := strings.Cut(answer, "\n\n")
	body, _, _ = strings.Cut(body, "\n<<< done")
	lines := strings.Split(head, "\n")
	status, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(lines[0], "<<< "))[0])
	ctype := "application/json"
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(strings.TrimPrefix(l, "<<< "), ": "); ok && k == "Content-Type" {
			ctype = v
		}
	}
	return oaitest.Func(func(w http.ResponseWriter, _ *http.Request, _ oaitest.Request) bool {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		_, err := w.Write([]byte(body + "\n"))
		return err == nil
	})
}

// TestOllamaRecordings: Ollama's own shapes, as recorded: reasoning in a
// "reasoning" field beside empty content, a whole tool call in one delta
// with a 32-character id, and a context overflow whose message is
// llama-server's error body as a string.
func TestOllamaRecordings(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, recordedOllama(t, "02-tool-call-stream.http.txt"), recordedOllama(t, "03-after-tool-stream.http.txt"),
		recordedOllama(t, "04-context-exceeded-wrapped.http.txt"))
	c := newClient(srv)
	var got collect
	resp, err := c.Complete(context.Background(), ask("hello"), got.handler())
	if err != nil || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read_file" || resp.ToolCalls[0].Arguments != `{"path":"Paris"}` ||
		len(resp.ToolCalls[0].ID) != 32 || !strings.Contains(resp.Reasoning, "so I call one") || resp.Content != "" || resp.Usage == nil || resp.Usage.Prompt != 1036 {
		t.Fatalf("tool call stream: %+v %v", resp, err)
	}
	resp, err = c.Complete(context.Background(), ask("go on"), got.handler())
	if err != nil || resp.Content == "" || resp.FinishReason != "stop" {
		t.Fatalf("after the tool: %+v %v", resp, err)
	}
	_, err = c.Complete(context.Background(), ask("too long"), got.handler())
	if err == nil || !strings.Contains(err.Error(), "exceeds the available context size (2048 tokens)") || !strings.Contains(err.Error(), "context window") ||
		strings.Contains(err.Error(), `\"error\"`) {
		t.Fatalf("wrapped overflow: %v", err)
	}
}
