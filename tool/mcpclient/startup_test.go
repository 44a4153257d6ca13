package mcpclient

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/mcptest"
)

// askingAtStart connects the test server, which asks its question as soon
// as it starts, with elicitor answering (nil: none), and returns what the
// server got.
func askingAtStart(t *testing.T, elicitor Elicitor) string {
	answer := filepath.Join(t.TempDir(), "answer")
	t.Setenv(mcptest.EnvAskAtStart, answer)
	servers := New(map[string]config.MCPConfig{"h": {Command: "unused"}}, func(string) string { return "" }, t.TempDir())
	servers.inProcess = func(string) mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := mcptest.NewServer().Connect(context.Background(), server, nil); err != nil {
			t.Fatal(err)
		}
		return client
	}
	t.Cleanup(func() { _ = servers.Close() })
	servers.SetElicitor(elicitor)
	if _, err := servers.Connect(context.Background(), "h"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(answer); len(b) > 0 {
			return string(b)
		}
	}
	t.Fatal("the server never wrote its answer")
	return ""
}

// TestQuestionWhileStarting: a server that asks as it starts (before its
// connection is listed) reaches the elicitor, which sees its name.
func TestQuestionWhileStarting(t *testing.T) {
	var asked Elicitation
	got := askingAtStart(t, func(_ context.Context, e Elicitation) (Answer, error) {
		asked = e
		return Answer{Action: "accept", Values: map[string]string{"city": "Paris"}}, nil
	})
	if got != "accept city=Paris" || asked.Server != "h" || asked.Message != mcptest.StartQuestion {
		t.Fatalf("the server got %q; asked %+v", got, asked)
	}
}

// TestNoElicitorDeclines: with nobody to ask, a form is declined, never
// accepted with its defaults.
func TestNoElicitorDeclines(t *testing.T) {
	if got := askingAtStart(t, nil); got != "decline" {
		t.Fatalf("the server got %q", got)
	}
}
