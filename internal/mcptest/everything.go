package mcptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Everything is the entry point of the reference MCP server
// (@modelcontextprotocol/server-everything, installed from npm into
// testdata/mcp by make test). Without it, or without node, the test
// skips, unless make said it installed it (CHAT_MCP_SERVERS_INSTALLED).
func Everything(t testing.TB) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	js := filepath.Join(filepath.Dir(here), "..", "..", "testdata", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	_, err := os.Stat(js)
	_, nodeErr := exec.LookPath("node")
	if err != nil || nodeErr != nil {
		if os.Getenv("CHAT_MCP_SERVERS_INSTALLED") == "1" {
			t.Fatalf("make installed the reference MCP servers, but: %v %v", err, nodeErr)
		}
		t.Skip("the reference MCP server is not installed (make test runs npm ci --prefix testdata/mcp) or node is missing")
	}
	return js
}

// EverythingHTTP starts the reference server over streamable HTTP on a
// free loopback port and returns its endpoint; it stops with the test.
func EverythingHTTP(t testing.TB, js string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", js, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() { // drained, so the server never blocks on its log
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("the reference server never said it listens")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
