package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/tool"
)

// hostileServer sends what a server may not, or too much: a form with a
// nested object, a prompt of 10,000 messages, a resource of 100 MB; and a
// URL to visit.
func hostileServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	// On protocol 2026-07-28 a server asks through the call's result
	// (multi round-trip requests); the client's SDK answers and retries.
	ask := func(name string, q *mcp.ElicitParams) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ans, ok := req.Params.InputResponses["q"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": q}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the person said " + ans.Action}}}, nil
		})
	}
	ask("nested_form", &mcp.ElicitParams{Message: "where do you live?", RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"address":{"type":"object","properties":{"street":{"type":"string"}}}}}`)})
	ask("visit", &mcp.ElicitParams{Mode: "url", Message: "authorize the bank", URL: "https://bank.example/authorize?x=1", ElicitationID: "e1"})
	s.AddPrompt(&mcp.Prompt{Name: "flood"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		msgs := make([]*mcp.PromptMessage, 10_000)
		for i := range msgs {
			msgs[i] = &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: "again"}}
		}
		return &mcp.GetPromptResult{Messages: msgs}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "fine"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "still here"}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "big://file", Name: "big"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: strings.Repeat("x", 100<<20)}}}, nil
	})
	return s
}

// TestHostileServer: each gets a clear error, and the connection goes on
// (a fine prompt works after).
func TestHostileServer(t *testing.T) {
	servers := New(map[string]config.MCPConfig{"h": {Command: "unused", Allow: []string{"nested_form", "visit"}}}, func(string) string { return "" }, t.TempDir())
	servers.inProcess = func(string) mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := hostileServer().Connect(context.Background(), server, nil); err != nil {
			t.Fatal(err)
		}
		return client
	}
	t.Cleanup(func() { _ = servers.Close() })
	var asked []Elicitation
	servers.SetElicitor(func(_ context.Context, e Elicitation) (Answer, error) {
		asked = append(asked, e)
		return Answer{Action: "accept"}, nil
	})
	ctx := context.Background()
	if _, err := servers.Connect(ctx, "h"); err != nil {
		t.Fatal(err)
	}
	set := tool.NewSet(&Connector{Servers: servers})
	if r := set.Dispatch(ctx, ConnectName, `{"name":"h"}`); r.Err != nil {
		t.Fatal(r.Err)
	}

	res := set.Dispatch(ctx, "h__nested_form", `{}`)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "nested properties") || len(asked) != 0 {
		t.Fatalf("a nested form: %+v; asked %d", res, len(asked))
	}
	res = set.Dispatch(ctx, "h__visit", `{}`)
	if res.Err != nil || res.Content != "the person said accept" || len(asked) != 1 || asked[0].URL != "https://bank.example/authorize?x=1" {
		t.Fatalf("a URL: %+v; asked %+v", res, asked)
	}
	if _, err := servers.GetPrompt(ctx, "h", "flood", nil); err == nil || !strings.Contains(err.Error(), "returned 10000 messages; chat takes at most 200 from a prompt (nothing was sent)") {
		t.Fatalf("10,000 messages: %v", err)
	}
	if _, err := servers.ReadResource(ctx, "h", "big://file"); err == nil || !strings.Contains(err.Error(), "larger than an MCP message may be") && !strings.Contains(err.Error(), "over the 2.0 MiB limit") {
		t.Fatalf("100 MB: %v", err)
	}
	if exp, err := servers.GetPrompt(ctx, "h", "fine", nil); err != nil || exp.Text != "still here" {
		t.Fatalf("after all that: %+v %v", exp, err)
	}
}
