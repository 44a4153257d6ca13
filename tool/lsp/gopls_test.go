package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWithGopls drives the manager against a real gopls (make
// lsp-servers), from two goroutines at once as concurrent tool calls do
// (go test -race watches): each file's verdict is its own, a fix clears
// it, the turn's delta counts both, and Close ends the server.
func TestWithGopls(t *testing.T) {
	gopls := installed(t, "bin/gopls")
	root := t.TempDir()
	write := writer(t, root)
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	a := write("a.go", "package main\n\nfunc main() { undefinedA() }\n")
	b := write("b.go", "package main\n\nfunc b() { undefinedB() }\n")
	var mu sync.Mutex
	var ready []string
	m := &Manager{Root: root, Start: execStarter, Wait: 2 * time.Minute, Ready: func(n string) { mu.Lock(); ready = append(ready, n); mu.Unlock() },
		Servers: []Server{{Name: "gopls", Command: []string{gopls}, Extensions: []string{".go"}, RootMarkers: []string{"go.mod"}}}}
	reports := make([]Report, 2)
	var wg sync.WaitGroup
	for i, p := range []string{a, b} {
		wg.Go(func() { reports[i] = m.Check(context.Background(), []string{p}) })
	}
	wg.Wait()
	for i, want := range []string{"undefined: undefinedA", "undefined: undefinedB"} {
		r := reports[i]
		if len(r.Files) != 1 || !r.Files[0].Fresh || len(r.Files[0].Diags) != 1 || r.Files[0].Diags[0].Message != want {
			t.Fatalf("check %d: %+v", i, r)
		}
	}
	write("a.go", "package main\n\nfunc main() {}\n")
	if r := m.Check(context.Background(), []string{a}); len(r.Files) != 1 || !r.Files[0].Fresh || len(r.Files[0].Diags) != 0 {
		t.Fatalf("after the fix: %+v", r)
	}
	if d, ok := m.TurnDelta(); !ok || d.Before.Errors != 0 || d.After.Errors != 1 || d.Files != 1 || d.Touched != 2 {
		t.Fatalf("delta %+v %v", d, ok)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ready) != 1 || len(m.Running()) != 1 {
		t.Fatalf("ready %v, running %v", ready, m.Running())
	}
	m.Close()
	if len(m.Running()) != 0 {
		t.Fatalf("still running after Close: %v", m.Running())
	}
}

// installed is the path of a server make lsp-servers puts under
// testdata/lsp; the test is skipped where it did not run.
func installed(t *testing.T, rel string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("../../testdata/lsp", rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CHAT_LSP_SERVERS_INSTALLED") == "1" {
			t.Fatalf("make lsp-servers installed %s, but it is missing", rel)
		}
		t.Skipf("%s is not installed (make lsp-servers)", rel)
	}
	return p
}

// writer writes files under root, folders made as needed.
func writer(t *testing.T, root string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}
