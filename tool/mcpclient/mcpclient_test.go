package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/tool"
)

func TestMain(m *testing.M) {
	mcptest.ServeStdioIfAsked() // this binary, run as an MCP server
	os.Exit(m.Run())
}

func allowAll(context.Context, tool.Request) (tool.Decision, error) {
	return tool.Decision{Verdict: tool.Allow}, nil
}

// connected is a set holding mcp_connect for servers, after the model
// connected name.
func connected(t *testing.T, servers *Servers, name string) *tool.Set {
	t.Helper()
	set := tool.NewSet(&Connector{Servers: servers})
	res := set.Dispatch(context.Background(), ConnectName, `{"name":"`+name+`"}`)
	if res.Err != nil || !strings.Contains(res.Content, name+"__echo") {
		t.Fatalf("connect: %+v", res)
	}
	t.Cleanup(func() { _ = servers.Close() })
	return set
}

// TestInProcessServer: a server's tools join the set as NAME__tool with
// its schemas; they ask for approval unless allowed; an error result is an
// error; a cancelled call reaches the server as a cancellation.
func TestInProcessServer(t *testing.T) {
	servers := New(map[string]config.MCPConfig{"t": {Command: "unused", Allow: []string{"echo"}}}, os.Getenv, t.TempDir())
	servers.inProcess = func(string) mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := mcptest.NewServer().Connect(context.Background(), server, nil); err != nil {
			t.Fatal(err)
		}
		return client
	}
	set := connected(t, servers, "t")
	echo, ok := set.Lookup("t__echo")
	if !ok || !strings.Contains(string(echo.Parameters()), `"text"`) {
		t.Fatal("the echo tool or its schema is missing")
	}
	if res := set.Dispatch(context.Background(), "t__echo", `{"text":"hi"}`); res.Err != nil || res.Content != "echo: hi" {
		t.Fatalf("allowed call: %+v", res)
	}
	if res := set.Dispatch(context.Background(), "t__fail", `{}`); res.Err == nil || !strings.Contains(res.Content, "needs the user's approval") {
		t.Fatalf("a tool not allowed ran without asking: %+v", res)
	}
	// The same tools, where the person says yes.
	set = tool.Rules{Policy: set.Policy(), Approver: tool.ApproverFunc(allowAll)}.Set(set.All()...)
	if res := set.Dispatch(context.Background(), "t__fail", `{}`); res.Err == nil || !strings.Contains(res.Content, "it failed on purpose") {
		t.Fatalf("an error result: %+v", res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if res := set.Dispatch(ctx, "t__wait", `{}`); res.Err == nil {
		t.Fatalf("a cancelled call succeeded: %+v", res)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("the cancelled call did not return promptly")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mcptest.Cancelled.Lock()
		n := mcptest.Cancelled.N
		mcptest.Cancelled.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never heard of the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := servers.States(); st[0].Status != "connected" || len(st[0].Tools) != 4 {
		t.Fatalf("%+v", st)
	}
}

// TestStdioServer: a server run as a command is connected, called, and
// its process is gone after Close.
func TestStdioServer(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	servers := New(map[string]config.MCPConfig{"proc": {Command: os.Args[0],
		Env: map[string]string{mcptest.EnvServe: "1", mcptest.EnvPIDFile: pidFile}, Allow: []string{"echo"}}}, os.Getenv, t.TempDir())
	set := connected(t, servers, "proc")
	if res := set.Dispatch(context.Background(), "proc__echo", `{"text":"over stdio"}`); res.Content != "echo: over stdio" {
		t.Fatalf("%+v", res)
	}
	pid := mcptest.PID(t, pidFile)
	if err := servers.Close(); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitGone(t, pid)
}

// TestHTTPServer: a server at a URL gets the configured headers, with
// ${VAR} taken from the environment.
func TestHTTPServer(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	srv := mcptest.ServeHTTP(func(r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
	})
	t.Cleanup(srv.Close) // after the servers close: the standalone SSE stream is open till then
	getenv := func(k string) string {
		if k == "DOCS_TOKEN" {
			return "s3cret"
		}
		return ""
	}
	servers := New(map[string]config.MCPConfig{"web": {URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${DOCS_TOKEN}"}, Allow: []string{"echo"}}}, getenv, t.TempDir())
	set := connected(t, servers, "web")
	if res := set.Dispatch(context.Background(), "web__echo", `{"text":"over http"}`); res.Content != "echo: over http" {
		t.Fatalf("%+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer s3cret" {
		t.Fatalf("headers seen: %v", auth)
	}
}

// TestServerThatFails: a server that cannot start says which and why; it
// is marked failed; the others are unaffected.
func TestServerThatFails(t *testing.T) {
	servers := New(map[string]config.MCPConfig{"broken": {Command: filepath.Join(t.TempDir(), "no-such-server")}}, os.Getenv, t.TempDir())
	_, err := servers.Connect(context.Background(), "broken")
	if err == nil || !strings.Contains(err.Error(), "MCP server broken") {
		t.Fatal(err)
	}
	if st := servers.States(); !strings.HasPrefix(st[0].Status, "failed: ") {
		t.Fatalf("%+v", st)
	}
	if _, err := servers.Connect(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "there are: broken") {
		t.Fatal(err)
	}
	_ = servers.Close()
	if _, err := servers.Connect(context.Background(), "broken"); err == nil || errors.Is(err, context.Canceled) {
		t.Fatal("connected after Close")
	}
}

// TestContentText: what is not text is described, not dropped or dumped.
func TestContentText(t *testing.T) {
	got := contentText(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "line"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
		&mcp.ResourceLink{Name: "readme", URI: "file:///r.md"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e.txt", Text: "embedded text"}},
	}})
	if got != "line\n[image, image/png, 5 bytes]\n[resource readme: file:///r.md]\nembedded text" {
		t.Fatalf("%q", got)
	}
	if got := contentText(&mcp.CallToolResult{StructuredContent: map[string]int{"n": 1}}); got != `{"n":1}` {
		t.Fatalf("%q", got)
	}
	long := wireName("a-very-long-server-name", strings.Repeat("x", 80)+" y")
	if len(long) != 64 || strings.ContainsAny(long, " ") {
		t.Fatalf("%q", long)
	}
}

// TestHeadersStayWithTheirServer: a server that redirects elsewhere does
// not get its configured token sent there; the redirect is not followed.
func TestHeadersStayWithTheirServer(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer elsewhere.Close()
	// Another origin: the same host by another name.
	target := strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1) + "/mcp"
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	servers := New(map[string]config.MCPConfig{"web": {URL: redirector.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}},
		func(string) string { return "" }, t.TempDir())
	_, err := servers.Connect(context.Background(), "web")
	if err == nil {
		t.Fatal("connected through a redirect to another origin")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range leaked {
		if a != "" {
			t.Fatalf("the token went to another origin: %q", a)
		}
	}
}

// TestFailedStartSaysWhy: a server that dies at start is reported with
// the last lines it wrote to stderr (it read only "client is closing: EOF").
func TestFailedStartSaysWhy(t *testing.T) {
	t.Parallel()
	servers := New(map[string]config.MCPConfig{"gh": {Command: "sh", Args: []string{"-c", "echo starting >&2; echo 'fatal: GITHUB_TOKEN is not set' >&2; exit 1"}}}, os.Getenv, t.TempDir())
	defer servers.Close()
	_, err := servers.Connect(context.Background(), "gh")
	if err == nil || !strings.Contains(err.Error(), "fatal: GITHUB_TOKEN is not set") {
		t.Fatalf("%v", err)
	}
}

// TestSlowServerDoesNotHoldTheOthers: while one server takes its time to
// start, another connects; a caller waiting for the slow one gives up
// with its own context.
func TestSlowServerDoesNotHoldTheOthers(t *testing.T) {
	t.Parallel()
	servers := New(map[string]config.MCPConfig{
		"slow": {Command: "sh", Args: []string{"-c", "exec sleep 60"}},
		"fast": {Command: "unused"},
	}, os.Getenv, t.TempDir())
	defer servers.Close()
	servers.inProcess = func(name string) mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if name == "slow" { // nobody answers its initialize
			return client
		}
		if _, err := mcptest.NewServer().Connect(context.Background(), server, nil); err != nil {
			t.Error(err)
		}
		return client
	}
	slowCtx, stopSlow := context.WithCancel(context.Background())
	defer stopSlow()
	go servers.Connect(slowCtx, "slow")
	time.Sleep(50 * time.Millisecond) // the slow one holds its dial
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if tools, err := servers.Connect(ctx, "fast"); err != nil || len(tools) == 0 {
		t.Fatalf("the fast server waited for the slow one: %v", err)
	}
	wait, cancelWait := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelWait()
	if _, err := servers.Connect(wait, "slow"); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second caller of the slow server: %v", err)
	}
}

// TestCutNamesStayUnique: two tools whose names are the same once cut to
// 64 bytes both stay, under different names.
func TestCutNamesStayUnique(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70)
	var have []tool.Tool
	for _, remote := range []string{long + "_a", long + "_b"} {
		have = append(have, &serverTool{name: uniqueName(have, wireName("srv", remote)), server: "srv", remote: remote})
	}
	if a, b := have[0].Name(), have[1].Name(); a == b || len(a) > 64 || len(b) > 64 {
		t.Fatalf("%q %q", a, b)
	}
}

// TestCloseEndsADialInFlight: closing while a server is still starting
// ends the dial at once and leaves no session or process behind.
func TestCloseEndsADialInFlight(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	servers := New(map[string]config.MCPConfig{"slow": {Command: "sh", Args: []string{"-c", "echo $$ > " + pidFile + "; exec sleep 60"}}}, os.Getenv, t.TempDir())
	done := make(chan error, 1)
	go func() { _, err := servers.Connect(context.Background(), "slow"); done <- err }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never started")
		}
	}
	_ = servers.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("connected after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the dial went on after Close")
	}
	if st := servers.States(); len(st) != 1 || st[0].Status == "connected" {
		t.Fatalf("%+v", st)
	}
	b, _ := os.ReadFile(pidFile)
	var pid int
	fmt.Sscan(strings.TrimSpace(string(b)), &pid)
	for deadline := time.Now().Add(5 * time.Second); pid > 0 && syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server %d outlived Close", pid)
		}
	}
}
