package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func workspace(t *testing.T) (Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":         "build/\n*.log\n",
		"main.go":            "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"build/out.go":       "package out // ignored\n",
		"debug.log":          "hello from a log\n",
		"pkg/a/a.go":         "package a\n\n// Hello says hello.\nfunc Hello() {}\n",
		"pkg/a/.gitignore":   "gen.go\n",
		"pkg/a/gen.go":       "package a // generated, ignored by pkg/a/.gitignore\n",
		"docs/readme.txt":    "Hello docs\n",
		"bin/tool":           "\x7fELF\x00\x01hello",
		"notes/long.txt":     strings.Repeat("hello line\n", 20000),
		"notes/unicode.txt":  "héllo wörld\n",
		"notes/quote.txt":    "one\ntwo\nthree\ntwo\n",
		"notes/executable":   "#!/bin/sh\n",
		"notes/trailing.txt": "no newline at end",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Workspace{Root: dir, MaxOutput: 4096}, dir
}

func dispatch(set *Set, name string, args any) Result {
	b, _ := json.Marshal(args)
	return set.Dispatch(context.Background(), name, string(b))
}

func TestGrepAndListRespectGitignore(t *testing.T) {
	t.Parallel()
	ws, _ := workspace(t)
	set := NewSet(Builtins(ws)...)
	r := dispatch(set, "grep", map[string]any{"pattern": `héllo|Hello|"hello"`})
	if r.Err != nil {
		t.Fatal(r.Content)
	}
	for _, want := range []string{"main.go:4:", "pkg/a/a.go:3:", "docs/readme.txt:1:", "notes/unicode.txt:1:"} {
		if !strings.Contains(r.Content, want) {
			t.Fatalf("grep lacks %q:\n%s", want, r.Content)
		}
	}
	for _, not := range []string{"build/out.go", "debug.log", "gen.go", "bin/tool"} {
		if strings.Contains(r.Content, not) {
			t.Fatalf("grep searched %s:\n%s", not, r.Content)
		}
	}
	r = dispatch(set, "grep", map[string]any{"pattern": "hello line", "max_matches": 50})
	if strings.Count(r.Content, "\n") != 51 || !strings.Contains(r.Content, "[stopped at 50 matches") {
		t.Fatalf("20,000 matching lines were not capped:\n%s", r.Content)
	}
	r = dispatch(set, "grep", map[string]any{"pattern": "package", "glob": "*.go"})
	if strings.Contains(r.Content, "readme") || !strings.Contains(r.Content, "main.go") {
		t.Fatal(r.Content)
	}
	if r = dispatch(set, "grep", map[string]any{"pattern": "("}); r.ErrType != ErrTypeExecution || !strings.Contains(r.Content, "bad regular expression") {
		t.Fatal(r)
	}
	r = dispatch(set, "list_files", map[string]any{"depth": 5})
	if strings.Contains(r.Content, "build/") || strings.Contains(r.Content, "debug.log") || strings.Contains(r.Content, "gen.go") || !strings.Contains(r.Content, "pkg/a/a.go") {
		t.Fatalf("list:\n%s", r.Content)
	}
}

func TestEditAndWrite(t *testing.T) {
	t.Parallel()
	ws, dir := workspace(t)
	set := NewSet(Builtins(ws)...)
	set.rules.Policy = &Policy{AllowAll: true}
	r := dispatch(set, "edit_file", map[string]any{"path": "notes/quote.txt", "old_string": "two", "new_string": "2"})
	if r.Err == nil || !strings.Contains(r.Content, "occurs 2 times") {
		t.Fatal(r.Content)
	}
	r = dispatch(set, "edit_file", map[string]any{"path": "notes/quote.txt", "old_string": "one\ntwo", "new_string": "1\n2"})
	if r.Err != nil || !strings.Contains(r.Content, "-one") || !strings.Contains(r.Content, "+1") {
		t.Fatal(r.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes/quote.txt")); string(b) != "1\n2\nthree\ntwo\n" {
		t.Fatalf("file %q", b)
	}
	r = dispatch(set, "edit_file", map[string]any{"path": "notes/quote.txt", "old_string": "nowhere", "new_string": "x"})
	if r.Err == nil || !strings.Contains(r.Content, "was not found") {
		t.Fatal(r.Content)
	}
	r = dispatch(set, "edit_file", map[string]any{"path": "missing.txt", "old_string": "a", "new_string": "b"})
	if r.Err == nil || !strings.Contains(r.Content, "does not exist") {
		t.Fatal(r.Content)
	}
	r = dispatch(set, "write_file", map[string]any{"path": "new/dir/file.txt", "content": "fresh\n"})
	if b, err := os.ReadFile(filepath.Join(dir, "new/dir/file.txt")); r.Err != nil || err != nil || string(b) != "fresh\n" {
		t.Fatal(r.Content, err)
	}
	// A file inside named by its absolute path: the diff names it as the
	// person knows it (it said a/<the whole path>).
	r = dispatch(set, "edit_file", map[string]any{"path": filepath.Join(dir, "new/dir/file.txt"), "old_string": "fresh", "new_string": "ripe"})
	if r.Err != nil || !strings.Contains(r.Content, "--- a/new/dir/file.txt\n+++ b/new/dir/file.txt") {
		t.Fatal(r.Content)
	}
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	ws, dir := workspace(t)
	var asked []Request
	answer := Decision{Verdict: Allow}
	approver := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked = append(asked, r)
		return answer, nil
	})
	set := NewSet(Builtins(ws)...)
	set.rules.Approver = approver
	set.rules.Policy = &Policy{AllowShell: []string{"echo"}, DenyShell: []string{"rm"}, DenyTools: []string{"fetch_url"}}

	r := dispatch(set, "write_file", map[string]any{"path": "a.txt", "content": "x\n"})
	if r.Err != nil || len(asked) != 1 || !strings.Contains(asked[0].Review.Detail, "+x") || asked[0].Review.Summary != "create a.txt (1 line)" {
		t.Fatalf("%+v %v", asked, r.Content)
	}
	answer = Decision{Verdict: Deny, Reason: "not that file"}
	r = dispatch(set, "write_file", map[string]any{"path": "b.txt", "content": "y"})
	if r.ErrType != ErrTypeDenied || !strings.Contains(r.Content, "not that file") {
		t.Fatal(r)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("a denied write happened")
	}
	n := len(asked)
	if r = dispatch(set, "run_shell", map[string]any{"command": "echo allowed by prefix"}); r.Err != nil || len(asked) != n {
		t.Fatalf("prefix allow: %v asked %d", r.Content, len(asked)-n)
	}
	if r = dispatch(set, "run_shell", map[string]any{"command": "echo x; touch pwned"}); len(asked) != n+1 {
		t.Fatal("a chained command passed the prefix allow list")
	}
	if r = dispatch(set, "run_shell", map[string]any{"command": "rm -rf /tmp/nothing"}); r.ErrType != ErrTypeDenied || len(asked) != n+1 {
		t.Fatalf("deny prefix: %v", r.Content)
	}
	if r = dispatch(set, "fetch_url", map[string]any{"url": "http://example.com"}); r.ErrType != ErrTypeDenied {
		t.Fatal(r)
	}
	answer = Decision{Verdict: AllowAlways}
	dispatch(set, "edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
	n = len(asked)
	dispatch(set, "edit_file", map[string]any{"path": "a.txt", "old_string": "y", "new_string": "z"})
	if len(asked) != n {
		t.Fatal("always was not remembered")
	}
	// Reading outside the workspace asks; inside it does not.
	n = len(asked)
	dispatch(set, "read_file", map[string]any{"path": "main.go"})
	dispatch(set, "read_file", map[string]any{"path": "../../etc/hostname"})
	if len(asked) != n+1 || !strings.Contains(asked[n].Review.Summary, "outside the working directory") {
		t.Fatalf("outside read: %+v", asked[n:])
	}
	// No approver (print mode without --yes): refused with a reason.
	plain := NewSet(Builtins(ws)...)
	if r = dispatch(plain, "run_shell", map[string]any{"command": "echo hi"}); r.ErrType != ErrTypeDenied || !strings.Contains(r.Content, "--yes") {
		t.Fatal(r)
	}
}

func TestRunShell(t *testing.T) {
	t.Parallel()
	ws, _ := workspace(t)
	set := NewSet(Builtins(ws)...)
	set.rules.Policy = &Policy{AllowAll: true}
	r := dispatch(set, "run_shell", map[string]any{"command": "pwd; echo err >&2; exit 3"})
	if r.Err != nil || !strings.Contains(r.Content, ws.Root) || !strings.Contains(r.Content, "err") || !strings.Contains(r.Content, "[exit status 3]") {
		t.Fatal(r.Content)
	}
	r = dispatch(set, "run_shell", map[string]any{"command": "yes hello | head -c 2000000"})
	if !strings.Contains(r.Content, "bytes of output cut") || len(r.Content) > 5000 {
		t.Fatalf("%d bytes", len(r.Content))
	}
	r = dispatch(set, "run_shell", map[string]any{"command": "sleep 30", "timeout_seconds": 1})
	if r.ErrType != ErrTypeExecution || !strings.Contains(r.Content, "timed out after 1s") {
		t.Fatal(r)
	}
	var progress strings.Builder
	ctx := WithProgress(context.Background(), func(s string) { progress.WriteString(s) })
	set.Dispatch(ctx, "run_shell", `{"command":"echo streamed"}`)
	if progress.String() != "streamed\n" {
		t.Fatalf("progress %q", progress.String())
	}
}

// TestRunShellCancelKillsTheGroup cancels a command that started children
// and checks none of them is left.
func TestRunShellCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	ws, dir := workspace(t)
	set := NewSet(Builtins(ws)...)
	set.rules.Policy = &Policy{AllowAll: true}
	pidFile := filepath.Join(dir, "pids")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() {
		done <- set.Dispatch(ctx, "run_shell", fmt.Sprintf(`{"command":"sleep 300 & echo $! > %s; sleep 300 & echo $! >> %s; wait"}`, pidFile, pidFile))
	}()
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); len(pids) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the command never started its children")
		}
		time.Sleep(10 * time.Millisecond)
		b, _ := os.ReadFile(pidFile)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
	}
	cancel()
	select {
	case r := <-done:
		if r.ErrType != ErrTypeCancelled {
			t.Fatal(r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the command was not cancelled within 30 s")
	}
	for _, p := range pids {
		for deadline := time.Now().Add(2 * time.Second); ; {
			if err := syscall.Kill(p, 0); errors.Is(err, syscall.ESRCH) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("child %d still runs after cancel", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestFetchURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>T</title><script>var x=1</script></head><body><nav>menu</nav><h1>Title</h1><p>First <b>para</b>.</p><p>Second.</p></body></html>`)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("x", 3<<20))
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG")
		case "/slow":
			time.Sleep(2 * time.Second)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	set := NewSet(FetchURL{})
	set.rules.Policy = &Policy{AllowTools: []string{"fetch_url"}}
	// A loopback server is the person's call each time: here they say yes.
	set.rules.Approver = ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{Verdict: Allow}, nil })
	r := dispatch(set, "fetch_url", map[string]any{"url": srv.URL + "/page"})
	if r.Err != nil || r.Content != "Title\nFirst para .\nSecond." {
		t.Fatalf("%q", r.Content)
	}
	if r = dispatch(set, "fetch_url", map[string]any{"url": srv.URL + "/big"}); !strings.Contains(r.Content, "truncated") {
		t.Fatal(len(r.Content))
	}
	if r = dispatch(set, "fetch_url", map[string]any{"url": srv.URL + "/img"}); r.Err == nil || !strings.Contains(r.Content, "not text") {
		t.Fatal(r.Content)
	}
	if r = dispatch(set, "fetch_url", map[string]any{"url": srv.URL + "/nope"}); r.Err == nil || !strings.Contains(r.Content, "404") {
		t.Fatal(r.Content)
	}
	if r = dispatch(set, "fetch_url", map[string]any{"url": "file:///etc/passwd"}); r.Err == nil || !strings.Contains(r.Content, "not an http(s) URL") {
		t.Fatal(r.Content)
	}
	quick := NewSet(FetchURL{})
	quick.rules = set.rules
	quick.SetTimeout("fetch_url", 100*time.Millisecond)
	if r = dispatch(quick, "fetch_url", map[string]any{"url": srv.URL + "/slow"}); r.ErrType != ErrTypeTimeout {
		t.Fatal(r)
	}
}

// TestWriteReviewNamesTheFileAsThePersonKnowsIt: the diff a person
// approves names a file in the working directory by its relative path
// (a/notes.txt), not the absolute one; a file outside by its whole path.
func TestWriteReviewNamesTheFileAsThePersonKnowsIt(t *testing.T) {
	ws, dir := workspace(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := WriteFile{Workspace: ws}.Review(context.Background(), []byte(`{"path":"notes.txt","content":"new\n"}`))
	if err != nil || !strings.Contains(r.Detail, "--- a/notes.txt") || strings.Contains(r.Detail, dir) {
		t.Errorf("write_file's diff (%v):\n%s", err, r.Detail)
	}
	r, err = EditFile{Workspace: ws}.Review(context.Background(), []byte(`{"path":"notes.txt","old_string":"old","new_string":"new"}`))
	if err != nil || !strings.Contains(r.Detail, "--- a/notes.txt") || strings.Contains(r.Detail, dir) {
		t.Errorf("edit_file's diff (%v):\n%s", err, r.Detail)
	}
}
