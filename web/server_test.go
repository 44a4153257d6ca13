package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// page is a signed-in browser on the page of a `chat serve` run against
// a scripted model: the adapter tested in its package, through HTTP.
type page struct {
	t      *testing.T
	srv    *Server
	run    *app.Run
	model  *oaitest.Server
	client *http.Client
	base   string // the secret path the cookie is scoped to
	origin string
	work   string
}

func newPage(t *testing.T, replies ...oaitest.Reply) *page {
	t.Helper()
	model := oaitest.New(t, replies...)
	model.SetFallback(oaitest.Echoer{}.Reply)
	home, work := t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME": filepath.Join(home, ".local", "state"), "PATH": os.Getenv("PATH")}
	env := app.Env{Workdir: work, Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil }, Stderr: io.Discard}
	cfg := config.Config{BaseURL: model.BaseURL(), Model: "scripted-model", Sources: map[string]string{}}
	cfg.Sandbox.Mode = "off"
	ctx, cancel := context.WithCancel(context.Background())
	ls := listener.NewList()
	stream := NewStream()
	approvals := NewApprovals(stream)
	ls.Add(stream)
	run, err := app.Open(ctx, app.Spec{Config: cfg, Env: env, IfBusy: "exit", Listeners: ls, Cancellable: control.NewCancellable(),
		Interloper: control.NewInterloper(), Approver: approvals})
	if err != nil {
		t.Fatal(err)
	}
	run.Start(ctx, app.ProbeNever)
	stream.Follow(func() int { return run.Session().Len() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, Options{Run: run, Stream: stream, Approvals: approvals, Listener: ln, Own: true})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = srv.Serve(); close(served) }()
	t.Cleanup(func() { cancel(); <-served; run.Close() })
	jar, _ := cookiejar.New(nil)
	p := &page{t: t, srv: srv, run: run, model: model, client: &http.Client{Jar: jar, Timeout: time.Minute}, origin: "http://" + ln.Addr().String(), work: work}
	resp, err := p.client.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("signing in: %s", resp.Status)
	}
	p.base = p.origin + strings.TrimSuffix(resp.Request.URL.Path, "/")
	return p
}

// do sends a request to the page's API and returns the status and body.
func (p *page) do(method, path string, body any) (int, string) {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, p.base+path, rd)
	req.Header.Set("Origin", p.origin)
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (p *page) state() stateView {
	p.t.Helper()
	code, body := p.do("GET", "/api/state", nil)
	var v stateView
	if code != http.StatusOK || json.Unmarshal([]byte(body), &v) != nil {
		p.t.Fatalf("state: %d %s", code, body)
	}
	return v
}

// until waits for the page's state to satisfy ok.
func (p *page) until(what string, ok func(stateView) bool) stateView {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := p.state()
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: never; the state: %+v", what, v)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func texts(v stateView) string {
	var out []string
	for _, m := range v.Messages {
		out = append(out, m.Role+":"+m.Text+m.HTML)
	}
	return strings.Join(out, "|")
}

// TestPageRunsATurn: a message sent from the page runs a turn whose
// messages the state, the older-messages page and the session list show.
func TestPageRunsATurn(t *testing.T) {
	p := newPage(t)
	if code, _ := p.do("POST", "/api/send", map[string]any{"text": ""}); code != http.StatusBadRequest {
		t.Fatalf("an empty message: %d", code)
	}
	if code, body := p.do("POST", "/api/send", map[string]any{"text": "hello there"}); code != http.StatusNoContent {
		t.Fatalf("send: %d %s", code, body)
	}
	v := p.until("the answer", func(v stateView) bool { return !v.Running && strings.Contains(texts(v), "assistant:") })
	if !strings.Contains(texts(v), "user:hello there") || v.Session.Title == "" || v.Model != "scripted-model" || v.Context.Used == 0 {
		t.Fatalf("state %+v", v)
	}
	if code, body := p.do("GET", "/api/messages?before=2", nil); code != http.StatusOK || !strings.Contains(body, `"earlier":0`) {
		t.Fatalf("earlier: %d %s", code, body)
	}
	if code, _ := p.do("GET", "/api/messages?before=x", nil); code != http.StatusBadRequest {
		t.Fatalf("a bad index: %d", code)
	}
	code, body := p.do("GET", "/api/sessions", nil)
	if code != http.StatusOK || !strings.Contains(body, `"current":true`) {
		t.Fatalf("sessions: %d %s", code, body)
	}
	if code, body := p.do("POST", "/api/sessions", map[string]any{"new": true}); code != http.StatusNoContent {
		t.Fatalf("a new session: %d %s", code, body)
	}
	if v := p.state(); strings.Contains(texts(v), "hello there") {
		t.Fatalf("the new session shows the old: %s", texts(v))
	}
	if code, _ := p.do("POST", "/api/sessions", map[string]any{"id": "nope"}); code != http.StatusNotFound {
		t.Fatalf("an unknown session: %d", code)
	}
}

// TestPageSteersAndStops: what the page sends during a turn is pending
// (injected or queued), can be edited or removed until taken, and a Stop
// gives back what the turn never took.
func TestPageSteersAndStops(t *testing.T) {
	gate := oaitest.NewGate()
	p := newPage(t, oaitest.Answer{Text: "slow answer", Gate: gate, GateAfter: 1})
	p.do("POST", "/api/send", map[string]any{"text": "first"})
	<-gate.Entered()
	p.do("POST", "/api/send", map[string]any{"text": "join it"})
	p.do("POST", "/api/send", map[string]any{"text": "after it", "queue": true})
	v := p.until("two pending", func(v stateView) bool { return len(v.Pending) == 2 })
	if !v.Running || !v.Pending[0].Inject || v.Pending[1].Inject {
		t.Fatalf("pending %+v", v.Pending)
	}
	if code, body := p.do("POST", "/api/pending", map[string]any{"id": v.Pending[1].ID, "text": "after it, edited"}); code != http.StatusNoContent {
		t.Fatalf("edit: %d %s", code, body)
	}
	if code, _ := p.do("POST", "/api/pending", map[string]any{"id": v.Pending[0].ID, "remove": true}); code != http.StatusNoContent {
		t.Fatalf("remove: %d", code)
	}
	if code, _ := p.do("POST", "/api/pending", map[string]any{"id": 999, "text": "x"}); code != http.StatusConflict {
		t.Fatalf("an unknown item: %d", code)
	}
	if code, _ := p.do("POST", "/api/sessions", map[string]any{"new": true}); code != http.StatusConflict {
		t.Fatalf("switching sessions mid-turn: %d", code)
	}
	unsent := make(chan []string, 1)
	p.srv.loop.OnUnsent(func(s []string) { unsent <- s })
	if code, _ := p.do("POST", "/api/stop", nil); code != http.StatusNoContent {
		t.Fatalf("stop: %d", code)
	}
	if got := <-unsent; len(got) != 1 || got[0] != "after it, edited" {
		t.Fatalf("given back %q", got)
	}
	p.until("idle", func(v stateView) bool { return !v.Running })
}

// TestPageApprovesAndRewinds: a write the model asks for waits for the
// page's answer; the turn's diff shows it and a rewind undoes it.
func TestPageApprovesAndRewinds(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"path": "a.txt", "content": "one\n"})
	p := newPage(t, oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: string(args)}}}, oaitest.Answer{Text: "written"})
	p.do("POST", "/api/send", map[string]any{"text": "write it"})
	v := p.until("the question", func(v stateView) bool { return len(v.Approvals) == 1 })
	q := v.Approvals[0]
	if code, _ := p.do("POST", "/api/approval", map[string]any{"id": q.ID, "answer": "maybe"}); code != http.StatusConflict {
		t.Fatalf("an answer that is none: %d", code)
	}
	if code, body := p.do("POST", "/api/approval", map[string]any{"id": q.ID, "answer": "yes"}); code != http.StatusNoContent {
		t.Fatalf("yes: %d %s", code, body)
	}
	if code, _ := p.do("POST", "/api/approval", map[string]any{"id": q.ID, "answer": "yes"}); code != http.StatusConflict {
		t.Fatalf("answering twice: %d", code)
	}
	p.until("the end of the turn", func(v stateView) bool { return !v.Running && strings.Contains(texts(v), "written") })
	if b, _ := os.ReadFile(filepath.Join(p.work, "a.txt")); string(b) != "one\n" {
		t.Fatalf("the file holds %q", b)
	}
	code, body := p.do("GET", "/api/turns", nil)
	if code != http.StatusOK || !strings.Contains(body, "write it") {
		t.Fatalf("turns: %d %s", code, body)
	}
	if code, body := p.do("GET", "/api/turns/1/diff", nil); code != http.StatusOK || !strings.Contains(body, "a.txt") || !strings.Contains(body, "+one") {
		t.Fatalf("diff: %d %s", code, body)
	}
	if code, _ := p.do("GET", "/api/turns/x/diff", nil); code != http.StatusBadRequest {
		t.Fatalf("a turn that is no number: %d", code)
	}
	if code, body := p.do("POST", "/api/rewind", map[string]any{"n": 1, "preview": true, "files": true}); code != http.StatusOK || !strings.Contains(body, "a.txt") {
		t.Fatalf("preview: %d %s", code, body)
	}
	if code, body := p.do("POST", "/api/rewind", map[string]any{"n": 1, "files": true, "conversation": true}); code != http.StatusOK {
		t.Fatalf("rewind: %d %s", code, body)
	}
	if _, err := os.Stat(filepath.Join(p.work, "a.txt")); err == nil {
		t.Fatal("the rewind left the file")
	}
}

// TestTheGuard: a request that is not the signed-in page's is refused:
// another Host, no cookie, a change without the page's Origin, a
// sign-in link used twice.
func TestTheGuard(t *testing.T) {
	p := newPage(t)
	get := func(url string, header map[string]string) int {
		req, _ := http.NewRequest("GET", url, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if h := header["Host"]; h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(p.base+"/api/state", nil); code != http.StatusUnauthorized {
		t.Fatalf("no cookie: %d", code)
	}
	if code := get(p.base+"/api/state", map[string]string{"Host": "evil.example:80"}); code != http.StatusForbidden {
		t.Fatalf("another host: %d", code)
	}
	req, _ := http.NewRequest("POST", p.base+"/api/send", strings.NewReader(`{"text":"from elsewhere"}`))
	req.Header.Set("Origin", "http://evil.example")
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another origin: %d", resp.StatusCode)
	}
	link := p.srv.URL()
	signIn := func() int {
		jar, _ := cookiejar.New(nil)
		resp, err := (&http.Client{Jar: jar}).Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := signIn(); code != http.StatusOK {
		t.Fatalf("a fresh link: %d", code)
	}
	if code := signIn(); code == http.StatusOK {
		t.Fatal("a link worked twice")
	}
	if code, body := p.do("GET", "/", nil); code != http.StatusOK || !strings.Contains(body, "<html") {
		t.Fatalf("the page: %d", code)
	}
	if code, _ := p.do("GET", "/assets/code.css", nil); code != http.StatusOK {
		t.Fatalf("the code style: %d", code)
	}
}

// TestAlwaysOnlyWhereOffered: "always" answers a card that offered it,
// never one that did not (a page cannot widen a grant).
func TestAlwaysOnlyWhereOffered(t *testing.T) {
	a := NewApprovals(NewStream())
	ask := func(r tool.Request) (chan tool.Decision, string) {
		got := make(chan tool.Decision, 1)
		go func() {
			d, _ := a.Approve(context.Background(), r)
			got <- d
		}()
		for {
			if p := a.Pending(); len(p) == 1 {
				return got, p[0].ID
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	got, id := ask(tool.Request{Tool: "run_shell", Review: tool.Review{Summary: "rm -rf build"}})
	if err := a.Answer(id, "always", "", "browser"); err == nil {
		t.Fatal(`"always" was taken where it was not offered`)
	}
	if err := a.Answer(id, "why", "  ", "browser"); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d.Verdict != tool.Deny || d.Reason != "the user declined: the user declined" {
		t.Fatalf("decision %+v", d)
	}
	got, id = ask(tool.Request{Tool: "run_shell", Always: []tool.Grant{{Value: "make"}}})
	if err := a.Answer(id, "always", "", "browser"); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d.Verdict != tool.AllowAlways {
		t.Fatalf("decision %+v", d)
	}
}
