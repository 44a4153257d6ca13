// Package mcptest is an MCP server for tests, written with the same SDK
// chat's client uses: a few tools that echo, fail, and wait to be
// cancelled. Tests run it in process, as a subprocess on stdio
// (ServeStdioIfAsked in a TestMain) and over HTTP on loopback.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServe, set in a test binary's environment, makes ServeStdioIfAsked
// serve on stdio; EnvPIDFile names a file the server writes its pid to.
const (
	EnvServe   = "CHAT_TEST_MCP_SERVER"
	EnvPIDFile = "CHAT_TEST_MCP_PIDFILE"
	// EnvAskAtStart names a file: the server asks its client a question
	// (elicitation) as soon as the session is initialized and writes the
	// answer there ("accept city=Lyon", "decline", "cancel", "error: …").
	EnvAskAtStart = "CHAT_TEST_MCP_ASK_AT_START"
)

// StartQuestion is the message of the question EnvAskAtStart asks.
const StartQuestion = "Which city should the server start in?"

// Cancelled counts the calls of "wait" that ended by cancellation, in
// this process.
var Cancelled = struct {
	sync.Mutex
	N int
}{}

type echoArgs struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

type waitArgs struct{}

// NewServer returns the test server.
func NewServer() *mcp.Server {
	var opts *mcp.ServerOptions
	if file := os.Getenv(EnvAskAtStart); file != "" {
		// A server may ask unprompted only on the handshake-era protocol
		// (from 2026-07-28 a question is part of a call's result): this
		// one speaks 2025-11-25, as servers on older SDKs do.
		opts = &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}, InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			// Not in the handler: the client's answer may wait for
			// requests this session has yet to serve (tools/list).
			go askAtStart(req.Session, file)
		}}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Say the text back."}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."}, func(context.Context, *mcp.CallToolRequest, waitArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed on purpose"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "get_env", Description: "Returns the server's environment (as the reference server's get-env does)."}, func(context.Context, *mcp.CallToolRequest, waitArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Waits until cancelled."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ waitArgs) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		Cancelled.Lock()
		Cancelled.N++
		Cancelled.Unlock()
		return nil, nil, ctx.Err()
	})
	return s
}

// askAtStart asks the client StartQuestion and writes its answer to file.
func askAtStart(ss *mcp.ServerSession, file string) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"city": map[string]any{"type": "string", "title": "City", "default": "Lyon"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: StartQuestion, RequestedSchema: schema})
	answer := ""
	switch {
	case err != nil:
		answer = "error: " + err.Error()
	case res.Action == "accept":
		answer = fmt.Sprintf("accept city=%v", res.Content["city"])
	default:
		answer = res.Action
	}
	_ = os.WriteFile(file, []byte(answer), 0o600)
}

// ServeStdioIfAsked serves the test server on stdio and exits when the
// environment asks for it (the test binary run as an MCP server).
func ServeStdioIfAsked() {
	if os.Getenv(EnvServe) == "" {
		return
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if err := NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(0)
}

// ServeHTTP serves the test server over streamable HTTP on loopback; the
// handler sees every request (to check headers). Close it when done.
func ServeHTTP(seen func(*http.Request)) *httptest.Server {
	srv := NewServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			seen(r)
		}
		h.ServeHTTP(w, r)
	}))
}

// PID is the pid the server wrote to file (EnvPIDFile).
func PID(t testing.TB, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the MCP server never started: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// WaitGone waits until process pid no longer exists.
func WaitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server process %d is still there", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
