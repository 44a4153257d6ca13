package app

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// TestTimeline: the turns a page lists, each with the files it changed,
// its diff, and what a rewind to it would put back (nothing is written).
func TestTimeline(t *testing.T) {
	srv := oaitest.New(t, write("a.txt", "one\n"), oaitest.Answer{Text: "wrote a"},
		write("a.txt", "two\n"), oaitest.Answer{Text: "changed a"})
	m := newMachine(t)
	r := open(t, m.spec(srv))
	defer r.Close()
	ask(t, r, "write a", "change a")
	turns, err := r.Timeline()
	if err != nil || len(turns) != 2 || turns[1].Question != "change a" || len(turns[1].Changes) != 1 || !turns[1].Checkpoint {
		t.Fatalf("timeline: %v %+v", err, turns)
	}
	diffs, err := r.TurnDiff(2)
	if err != nil || len(diffs) != 1 || !strings.Contains(diffs[0].Diff, "-one") || !strings.Contains(diffs[0].Diff, "+two") {
		t.Fatalf("diff: %v %+v", err, diffs)
	}
	if _, err := r.TurnDiff(3); err == nil {
		t.Fatal("a diff of a turn that is not there")
	}
	res, any, err := r.RewindPreview(2)
	if err != nil || !any || len(res.Restored) != 1 {
		t.Fatalf("preview: %v %v %+v", err, any, res)
	}
	if b, _ := os.ReadFile(filepath.Join(m.env.Workdir, "a.txt")); string(b) != "two\n" {
		t.Fatalf("the preview wrote: %q", b)
	}
}

// TestListings: the tables the listing commands print.
func TestListings(t *testing.T) {
	var b bytes.Buffer
	cost := 0.25
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	rows := []Listed{{Info: session.Info{ID: "0196abcdef0123456789", Dir: "/work/p", Title: "fix the bug", Messages: 4,
		Updated: now.Add(-3 * time.Hour)}, Cost: &cost}}
	if err := WriteSessions(&b, rows, now); err != nil || !strings.Contains(b.String(), "3h ago") || !strings.Contains(b.String(), "fix the bug") {
		t.Fatalf("sessions: %v\n%s", err, b.String())
	}
	b.Reset()
	defs := map[string]agent.Definition{"rev": {Identifier: "rev", Instructions: "Review.\nCarefully."}, "all": {Identifier: "all", Model: "m1"}}
	if err := WriteAgents(&b, defs, map[string]string{"rev": "config"}); err != nil || !strings.Contains(b.String(), "(all)") ||
		!strings.Contains(b.String(), "Review.") || strings.Contains(b.String(), "Carefully") || strings.Index(b.String(), "all ") > strings.Index(b.String(), "rev ") {
		t.Fatalf("agents: %v\n%s", err, b.String())
	}
}

// docsServer is an MCP server with a prompt, a resource and a tool.
func docsServer(t *testing.T) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hello to " + req.Params.Arguments["who"]}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "notes://today", Name: "today", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "buy milk"}}}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, struct{}, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, struct{}{}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv
}

// TestMCPFacade: a server's prompt and resource as a front end uses
// them, outside a run (chat mcp …) and in one (print mode, an editor).
func TestMCPFacade(t *testing.T) {
	docs := docsServer(t)
	m := newMachine(t)
	cfg := config.Config{MCP: map[string]config.MCPConfig{"docs": {URL: docs.URL}, "gone": {URL: "http://127.0.0.1:1/mcp"}}}
	ctx := context.Background()
	servers := OpenMCP(cfg, m.env)
	defer servers.Close()
	servers.ConnectAll(ctx)
	states := map[string]MCPState{}
	for _, st := range servers.States() {
		states[st.Name] = st
	}
	var b bytes.Buffer
	if err := WriteMCPServers(&b, cfg.MCP, states); err != nil || !strings.Contains(b.String(), "connected") || strings.Count(b.String(), "\n") != 3 {
		t.Fatalf("servers: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteMCPPrompts(&b, servers.Prompts()); err != nil || !strings.Contains(b.String(), "/docs:greet") {
		t.Fatalf("prompts: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteMCPResources(&b, servers.Resources()); err != nil || !strings.Contains(b.String(), "@docs:notes://today") {
		t.Fatalf("resources: %v\n%s", err, b.String())
	}
	if !servers.IsPromptLine("/docs:greet who=Ada") || servers.IsPromptLine("/nobody:greet") || !servers.Connected("docs") || servers.Connected("gone") {
		t.Fatal("prompt lines or connection states are wrong")
	}
	if missing, err := servers.MissingArgs(ctx, "/docs:greet"); err != nil || len(missing) != 1 || missing[0].Name != "who" {
		t.Fatalf("missing: %v %+v", err, missing)
	}
	if _, err := servers.Expand(ctx, "/nobody:greet"); err == nil {
		t.Fatal("an unknown server's prompt expanded")
	}
	all, asking := servers.Mentions("see @docs:notes://today and @else:x")
	if len(all) != 1 || len(asking) != 1 {
		t.Fatalf("mentions %v, asking %v", all, asking)
	}
	var said []string
	decline := Declining(func(s string) { said = append(said, s) }, "nobody is there")
	if a, err := decline(ctx, Elicitation{Server: "docs", Message: "your name?"}); err != nil || a.Action != "decline" || len(said) != 1 {
		t.Fatalf("declining: %+v %v %q", a, err, said)
	}

	spec := m.spec(oaitest.New(t))
	spec.Config.MCP = cfg.MCP
	r := open(t, spec)
	defer r.Close()
	if r.MCP() == nil {
		t.Fatal("no MCP in a run with servers")
	}
	text, files, err := r.ExpandInput(ctx, "/docs:greet who=Ada", nil)
	if err != nil || text != "say hello to Ada" || len(files) != 0 {
		t.Fatalf("a prompt line: %v %q %d files", err, text, len(files))
	}
	text, files, err = r.ExpandInput(ctx, "summarise @docs:notes://today", nil)
	if err != nil || text != "summarise @docs:notes://today" || len(files) != 1 || !strings.Contains(string(files[0].Data), "buy milk") {
		t.Fatalf("a mention: %v %q %+v", err, text, files)
	}
	if _, _, err := r.ExpandInput(ctx, "read @docs:notes://missing", nil); err == nil {
		t.Fatal("an unlisted resource was read")
	}
}
