package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// served is `chat serve` running against a scripted model server.
type served struct {
	url  string // with the token
	base string // http://127.0.0.1:PORT
	dir  string
	cmd  *exec.Cmd
}

func startServe(t testing.TB, srv *oaitest.Server, args ...string) *served {
	t.Helper()
	return startServeConfig(t, srv, "", args...)
}

// startServeConfig starts chat serve with configTOML as its config file.
func startServeConfig(t testing.TB, srv *oaitest.Server, configTOML string, args ...string) *served {
	t.Helper()
	cmd := command(t, srv)
	if configTOML != "" {
		p := filepath.Join(cmd.Dir, "config.toml")
		if err := os.WriteFile(p, []byte(configTOML), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", p)
	}
	return startServeIn(t, cmd, args...)
}

// startServeIn starts chat serve as cmd (made by command) with args.
func startServeIn(t testing.TB, cmd *exec.Cmd, args ...string) *served {
	t.Helper()
	cmd.Args = append(cmd.Args, append([]string{"serve"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("chat serve did not end within 20 s of SIGINT; stderr:\n%s", stderr.String())
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case l := <-line:
		u, err := url.Parse(l)
		if err != nil || u.Query().Get("token") == "" {
			t.Fatalf("chat serve printed %q, not an address with a token; stderr:\n%s", l, stderr.String())
		}
		return &served{url: l, base: "http://" + u.Host, dir: cmd.Dir, cmd: cmd}
	case <-time.After(runDeadline):
		t.Fatalf("chat serve printed no address; stderr:\n%s", stderr.String())
	}
	return nil
}

// browser is a headless Chromium of its own (Debian's chromium) at w×h.
func browser(t testing.TB, w, h int) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH (Debian: apt-get install chromium; .ci/run installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(w, h),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("enable-precise-memory-info", true))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses its own sandbox as root
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	// The first call starts the browser, on a context without a deadline
	// (a deadline there would end the browser); each step has its own.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// tab is another tab of the same browser (the same cookies).
func tab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tctx, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tctx); err != nil {
		t.Fatal(err)
	}
	return tctx
}

type step = chromedp.Action[chromedp.Void]

// until waits for a JavaScript condition on the page.
func until(expr string) step {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))(ctx, tg)
		return err
	})
}

func logHas(text string) step {
	return until(fmt.Sprintf("document.getElementById('log').textContent.includes(%q)", text))
}

// do runs steps with a deadline and fails the test with what the page shows.
func do(t *testing.T, ctx context.Context, what string, steps ...step) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, runDeadline)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
		t.Fatalf("%s: %v\nthe page shows:\n%s", what, err, shown)
	}
}

// eval is the value of a JavaScript expression on the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// send types text into the input and presses Enter (alt: Alt+Enter).
func send(text string, alt bool) step {
	var mods []chromedp.KeyOption
	if alt {
		mods = append(mods, chromedp.KeyModifiers(chromedp.ModifierAlt))
	}
	return chromedp.Steps(chromedp.SendKeys(chromedp.CSS("#input"), text), chromedp.KeyEvent("\r", mods...))
}

func TestServeRendersATurnAndFitsAPhone(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Reasoning: "The person wants notes; I will write them and check.",
			Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"printf 'first note\\n' > notes.txt && wc -l notes.txt"}`}}},
		oaitest.Answer{Text: "I wrote **notes.txt** with one line. To read it:\n\n```go\ndata, err := os.ReadFile(\"notes.txt\")\nif err != nil {\n\treturn err\n}\nfmt.Print(string(data))\n```\n\n| file | lines |\n|---|---|\n| notes.txt | 1 |\n"})
	s := startServe(t, srv)
	ctx := browser(t, 1280, 800)
	do(t, ctx, "send a prompt and read the Markdown",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS("#input")),
		send("write a note and show me how to read it in Go", false),
		until(`document.querySelector('.md strong') !== null`),
		until(`document.getElementById('stop').disabled`),
	)
	strong := eval[string](t, ctx, `document.querySelector('.md strong').textContent`)
	code := eval[string](t, ctx, `document.querySelector('.md pre.chroma').textContent`)
	if strong != "notes.txt" || !strings.Contains(code, "os.ReadFile") {
		t.Fatalf("rendered: strong %q, code %q", strong, code)
	}
	url := eval[string](t, ctx, `location.href`)
	if strings.Contains(url, "token") {
		t.Fatalf("the address bar still holds the token: %s", url)
	}
	do(t, ctx, "the turns panel shows the file the turn made", chromedp.Click(chromedp.CSS("#menu")),
		until(`document.getElementById('turns').innerText.includes('+ notes.txt')`))
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {390, 844}} {
		if size.w < 700 {
			do(t, ctx, "close the panel", chromedp.Click(chromedp.CSS("#menu")))
		}
		do(t, ctx, fmt.Sprintf("the page at %dx%d", size.w, size.h),
			chromedp.EmulateViewport(size.w, size.h),
			until(fmt.Sprintf("window.innerWidth === %d", size.w)))
		overflow := eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth || [...document.querySelectorAll('body *')].some(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('pre, .md table, #side[hidden]'))`)
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		saveScreenshot(t, fmt.Sprintf("serve-%dx%d.png", size.w, size.h), buf)
		if overflow {
			t.Errorf("at %dx%d something overflows the page horizontally", size.w, size.h)
		}
	}
}

// saveScreenshot keeps a screenshot where CHAT_SCREENSHOTS says (else in
// the temporary directory) and says where.
func saveScreenshot(t *testing.T, name string, png []byte) {
	dir := os.Getenv("CHAT_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "chat-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// TestServeNobodyElseGetsIn: without the token nothing answers; a request
// naming another host (DNS rebinding) or from another origin is refused;
// the cookie is HttpOnly and SameSite=Strict; no secret in any answer.
func TestServeNobodyElseGetsIn(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "fine"})
	s := startServe(t, srv)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, mod func(*http.Request)) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		if mod != nil {
			mod(req)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for _, p := range []string{"/", "/api/state", "/api/events", "/api/sessions", "/assets/app.js"} {
		if r := get(p, nil); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", p, r.StatusCode)
		}
	}
	if r := get("/?token="+strings.Repeat("0", 64), nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", r.StatusCode)
	}
	u, _ := url.Parse(s.url)
	tok := u.Query().Get("token")
	if len(tok) != 64 {
		t.Errorf("the token %q is not 256 bits of hex", tok)
	}
	login := get("/?token="+tok, nil)
	if login.StatusCode != http.StatusSeeOther {
		t.Fatalf("the token: %d, want 303 to the page", login.StatusCode)
	}
	setCookie := login.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	cookie := login.Cookies()[0]
	withCookie := func(r *http.Request) { r.AddCookie(cookie) }
	page := get("/", withCookie)
	if page.StatusCode != 200 {
		t.Fatalf("the page with the cookie: %d", page.StatusCode)
	}
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if r := get("/api/state", func(r *http.Request) { withCookie(r); r.Host = "evil.example:" + u.Port() }); r.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %d, want 403", r.StatusCode)
	}
	if r := get("/api/state", func(r *http.Request) { withCookie(r); r.Host = "localhost:" + u.Port() }); r.StatusCode != http.StatusOK {
		t.Errorf("Host localhost: %d, want 200", r.StatusCode)
	}
	post := func(origin, body string) int {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/api/send", strings.NewReader(body))
		req.AddCookie(cookie)
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("", `{"text":"hi"}`); c != http.StatusForbidden {
		t.Errorf("a POST without Origin: %d, want 403", c)
	}
	if c := post("http://evil.example", `{"text":"hi"}`); c != http.StatusForbidden {
		t.Errorf("a POST from another origin: %d, want 403", c)
	}
	if c := post(s.base, `{"text":"`+strings.Repeat("x", 5<<20)+`"}`); c != http.StatusRequestEntityTooLarge {
		t.Errorf("a 5 MiB body: %d, want 413", c)
	}
	if c := post(s.base, `{"text":"hello"}`); c != http.StatusNoContent {
		t.Fatalf("a POST from the page: %d, want 204", c)
	}
	deadline := time.Now().Add(time.Minute)
	for srv.RequestCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range []string{"/", "/api/state", "/api/sessions", "/api/turns", "/assets/app.js"} {
		body, _ := io.ReadAll(get(p, withCookie).Body)
		if strings.Contains(string(body), "sk-test-secret") {
			t.Errorf("%s shows the API key", p)
		}
	}
	events := get("/api/events?after=0", func(r *http.Request) {
		withCookie(r)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		*r = *r.WithContext(ctx)
	})
	body, _ := io.ReadAll(events.Body)
	if !strings.Contains(string(body), `"type":"assistant"`) || strings.Contains(string(body), "sk-test-secret") {
		t.Errorf("the event stream (an answer, no secret):\n%s", body)
	}
}

func call(id, name, args string) oaitest.Answer {
	return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: name, Args: args}}}
}

// userTexts is every user message of a request.
func userTexts(r oaitest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, m.Text())
		}
	}
	return out
}

// TestServeSteersLikeTheREPL: Enter during a turn joins it, Alt+Enter
// queues for after it (both shown as pending until taken), Stop ends the
// turn at once (the model server sees its stream close) and the session
// goes on.
func TestServeSteersLikeTheREPL(t *testing.T) {
	t.Parallel()
	held, slow := oaitest.NewGate(), oaitest.NewGate()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "list_files", Args: `{}`}}, Gate: held, GateAfter: 1},
		oaitest.Answer{Text: "saw the joined text"},
		oaitest.Answer{Text: "answer to the queued question"},
		oaitest.Answer{Text: "slow slow slow slow slow slow slow slow", Gate: slow, GateAfter: 2},
		oaitest.Answer{Text: "still here"})
	s := startServe(t, srv)
	ctx := browser(t, 1280, 800)
	do(t, ctx, "send the first question", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")), send("first question", false))
	<-held.Entered()
	do(t, ctx, "join and queue during the turn",
		send("joined words", false),
		until(`[...document.querySelectorAll('#pending li')].some(li => li.innerText.includes('joined words') && li.innerText.toLowerCase().includes('joins the turn'))`),
		send("queued question", true),
		until(`[...document.querySelectorAll('#pending li')].some(li => li.innerText.includes('queued question') && li.innerText.toLowerCase().includes('after the turn'))`),
		send("a second queued one", true),
		until(`document.querySelectorAll('#pending li').length === 3`),
	)
	// The pending items are editable and removable (the page's Edit asks
	// with a prompt dialog; its request is the same).
	pendingPost := func(body string) int {
		return eval[int](t, ctx, `(async () => { const li = [...document.querySelectorAll('#pending li')]; const r = await fetch('/api/pending', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(`+body+`)}); return r.status; })()`)
	}
	if c := pendingPost(`{id: Number(li[1].dataset.id), text: 'queued question, edited'}`); c != http.StatusNoContent {
		t.Fatalf("editing a queued item: %d", c)
	}
	do(t, ctx, "the edit shows", until(`document.getElementById('pending').innerText.includes('queued question, edited')`))
	do(t, ctx, "remove the second", chromedp.Click(chromedp.CSS(`#pending li:nth-child(3) button[data-action="remove"]`)),
		until(`document.querySelectorAll('#pending li').length === 2`))
	held.Release()
	do(t, ctx, "the turn takes the joined text, then the queued question runs",
		logHas("saw the joined text"), logHas("answer to the queued question"),
		until(`document.querySelectorAll('#pending li').length === 0`))
	reqs := srv.Requests()
	if u := userTexts(reqs[1]); len(u) != 2 || !strings.Contains(u[1], "joined words") {
		t.Fatalf("the turn's second request carries %q, want the joined words after the question", u)
	}
	if u := userTexts(reqs[2]); !strings.Contains(u[len(u)-1], "queued question, edited") || strings.Contains(strings.Join(u, " "), "a second queued one") {
		t.Fatalf("the queued question's request ends with %q", u[len(u)-1])
	}
	do(t, ctx, "a slow answer streams", send("talk slowly", false), logHas("slow"))
	<-slow.Entered()
	do(t, ctx, "Stop", chromedp.Click(chromedp.CSS("#stop")), logHas("cancelled"))
	wantHangup(t, srv, "after Stop")
	do(t, ctx, "the session goes on", until(`document.getElementById('stop').disabled`), send("are you there?", false), logHas("still here"))
}

// TestServeApprovalsAreButtons: a call that needs approval shows a card;
// typing never answers it; yes, no and "tell why" are clicks.
func TestServeApprovalsAreButtons(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		call("w1", "write_file", `{"path":"one.txt","content":"a\n"}`), oaitest.Answer{Text: "wrote one"},
		call("w2", "write_file", `{"path":"two.txt","content":"b\n"}`), oaitest.Answer{Text: "left two"},
		call("w3", "write_file", `{"path":"three.txt","content":"c\n"}`), oaitest.Answer{Text: "understood"})
	s := startServe(t, srv)
	ctx := browser(t, 1280, 800)
	card := `document.querySelector('.approval')`
	do(t, ctx, "a write asks",
		chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")), send("write one", false),
		until(card+` !== null && `+card+`.innerText.includes('one.txt')`),
		chromedp.SendKeys(chromedp.CSS("#input"), "yes\r"), // typing is a message, never an answer
		chromedp.Sleep(300*time.Millisecond),
		until(card+` !== null`))
	if _, err := os.Stat(filepath.Join(s.dir, "one.txt")); err == nil {
		t.Fatal("one.txt was written before anyone clicked")
	}
	do(t, ctx, "yes", chromedp.Click(chromedp.CSS(`.approval button[data-answer="yes"]`)), logHas("wrote one"), until(card+` === null`))
	if b, err := os.ReadFile(filepath.Join(s.dir, "one.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("one.txt after yes: %q %v", b, err)
	}
	do(t, ctx, "no", until(`document.getElementById('stop').disabled`), send("write two", false), until(card+` !== null`),
		chromedp.Click(chromedp.CSS(`.approval button[data-answer="no"]`)), logHas("left two"))
	if _, err := os.Stat(filepath.Join(s.dir, "two.txt")); err == nil {
		t.Fatal("two.txt was written after no")
	}
	do(t, ctx, "tell why", until(`document.getElementById('stop').disabled`), send("write three", false), until(card+` !== null`),
		chromedp.Click(chromedp.CSS(`.approval button[data-answer="why"]`)),
		chromedp.SendKeys(chromedp.CSS(".approval input.reason"), "use four.txt instead"),
		chromedp.Click(chromedp.CSS(`.approval button[data-answer="why-send"]`)), logHas("understood"))
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if r := last[len(last)-1].Text(); !strings.Contains(r, "use four.txt instead") {
		t.Fatalf("the model was told %q, not the reason", r)
	}
	// What was typed while the first card was up went as a message.
	found := false
	for _, r := range reqs {
		for _, u := range userTexts(r) {
			found = found || strings.Contains(u, "yes")
		}
	}
	if !found {
		t.Error("the text typed while a card was up was lost")
	}
}

// TestServeReloadMidStream: a page reloaded while an answer streams shows
// it whole once the stream ends: nothing twice, nothing missing.
func TestServeReloadMidStream(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	words := "alpha beta gamma delta epsilon zeta eta theta iota kappa"
	srv := oaitest.New(t, oaitest.Answer{Text: "an earlier turn's answer"}, oaitest.Answer{Text: words, Piece: 6, Gate: gate, GateAfter: 3})
	s := startServe(t, srv)
	ctx := browser(t, 1280, 800)
	do(t, ctx, "an earlier turn", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")), send("first", false),
		logHas("an earlier turn's answer"), until(`document.getElementById('stop').disabled`))
	do(t, ctx, "stream begins", send("say the words", false), logHas("alpha"))
	<-gate.Entered()
	do(t, ctx, "reload mid-stream", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input")), logHas("alpha be"))
	gate.Release()
	do(t, ctx, "the answer ends", until(`[...document.querySelectorAll('.md')].some(e => e.innerText.includes('kappa'))`))
	shown := eval[string](t, ctx, `document.getElementById('log').textContent`)
	if n, m := strings.Count(shown, "alpha"), strings.Count(shown, "an earlier turn's answer"); n != 1 || m != 1 {
		t.Fatalf("after a reload the answer shows %d times:\n%s", n, shown)
	}
	if !strings.Contains(shown, words) {
		t.Fatalf("after a reload the answer is not whole:\n%s", shown)
	}
}

// TestServeModelTextNeverRuns: what a model, a tool, a file name or a
// question says is text on the page: script tags, event handlers,
// javascript: links, SVG and terminal escapes neither run nor style it.
func TestServeModelTextNeverRuns(t *testing.T) {
	t.Parallel()
	payload := "<script>window.__pwned=1</script> <img src=x onerror=\"window.__pwned=2\"> " +
		"[click me](javascript:window.__pwned=3) <svg onload=\"window.__pwned=4\"><circle r=9 /></svg> " +
		"<a href=\"javascript:window.__pwned=5\">link</a> <iframe src=\"javascript:window.__pwned=6\"></iframe> " +
		"<style>body{display:none}</style> \x1b]0;pwned\x07\x1b[31mred\x1b[0m <div style=\"position:fixed;inset:0\">cover</div>"
	shell := `printf '%s\n' '<img src=x onerror=window.__pwned=7>'; touch '<img src=x onerror=window.__pwned=8>.txt'`
	srv := oaitest.New(t,
		call("s1", "run_shell", `{"command":`+quote(shell)+`}`),
		oaitest.Answer{Reasoning: "<img src=x onerror=window.__pwned=9>", Text: payload,
			Calls: []oaitest.Call{{ID: "a1", Name: "agent", Args: `{"name":"helper","task":"<img src=x onerror=window.__pwned=11>"}`}}},
		oaitest.Answer{Text: "sub says <img src=x onerror=window.__pwned=12>"},
		oaitest.Answer{Text: "done"})
	s := startServeConfig(t, srv, "[agents.helper]\ninstructions = \"help\"\ntools = [\"list_files\"]\n")
	ctx := browser(t, 1280, 800)
	do(t, ctx, "a turn full of payloads",
		chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		send(`<img src=x onerror=window.__pwned=13>`, false),
		logHas("<img src=x onerror=window.__pwned=7>"), logHas("cover"), logHas("sub says <img"), logHas("done"),
		until(`document.querySelector('.tool .sub') !== null`),
		until(`document.getElementById('stop').disabled`))
	// Everything the page can show: a reload (the history's rendering), the
	// side panel (sessions, turns and the file the turn made), every link.
	do(t, ctx, "reload and open the panel", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#input")), logHas("cover"),
		chromedp.Click(chromedp.CSS("#menu")),
		until(`document.getElementById('turns').innerText.includes('window.__pwned=8>.txt')`),
		until(`document.getElementById('sessions').innerText.includes('window.__pwned=13')`),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#log a').forEach(a => a.click())`),
		chromedp.Sleep(300*time.Millisecond))
	if pwned := eval[bool](t, ctx, `typeof window.__pwned !== 'undefined'`); pwned {
		t.Fatalf("a payload ran: window.__pwned = %v", eval[any](t, ctx, `window.__pwned`))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#log img, #log svg, #log iframe, #log script, #log style, #log [style], #log [onerror], #log [onload]').length`); n != 0 {
		t.Fatalf("%d elements of model text became markup: %s", n, eval[string](t, ctx, `document.getElementById('log').innerHTML`))
	}
	if title := eval[string](t, ctx, `document.title`); strings.Contains(title, "pwned") && !strings.Contains(title, "<img") {
		t.Fatalf("the title was set by an escape sequence: %q", title)
	}
	if hidden := eval[bool](t, ctx, `getComputedStyle(document.body).display === 'none'`); hidden {
		t.Fatal("a <style> in the answer styled the page")
	}
}

// TestServeSharesTheLiveREPLSession: chat --serve puts the REPL's session
// on a page; two browsers and the terminal show the same turns, an
// approval clicked in one browser closes in the other and in the
// terminal (which says where), text queued in either shows in the other,
// and Ctrl+C in the terminal stops the turn for all.
func TestServeSharesTheLiveREPLSession(t *testing.T) {
	t.Parallel()
	slow, again := oaitest.NewGate(), oaitest.NewGate()
	srv := oaitest.New(t,
		call("w1", "write_file", `{"path":"one.txt","content":"a\n"}`), oaitest.Answer{Text: "wrote one"},
		call("w2", "write_file", `{"path":"two.txt","content":"b\n"}`), oaitest.Answer{Text: "wrote two"},
		oaitest.Answer{Text: "slow slow slow slow slow slow", Gate: slow, GateAfter: 2},
		oaitest.Answer{Text: "again again again again", Gate: again, GateAfter: 2})
	tm := startTermOpts(t, srv, termOpts{width: 220, height: 50}, "--serve")
	scr := tm.waitFor("http://127.0.0.1:", 10*time.Second)
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64}`).FindString(scr)
	if addr == "" {
		t.Fatalf("no address on the screen:\n%s", scr)
	}
	a := browser(t, 1280, 800)
	b := tab(t, a)
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "open the shared session", chromedp.Navigate(addr), chromedp.WaitVisible(chromedp.CSS("#input")))
	}
	tm.ask("write one")
	card := `document.querySelector('.approval') !== null && document.querySelector('.approval').innerText.includes('one.txt')`
	do(t, a, "the card in the first browser", until(card))
	do(t, b, "the card in the second, clicked", until(card), chromedp.Click(chromedp.CSS(`.approval button[data-answer="yes"]`)))
	tm.waitFor("approved (in a browser)", 10*time.Second)
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "the card closes and the answer shows", until(`document.querySelector('.approval') === null`), logHas("wrote one"), logHas("write one"))
	}
	tm.waitFor("wrote one", 10*time.Second)
	if got, err := os.ReadFile(filepath.Join(tm.dir, "one.txt")); err != nil || string(got) != "a\n" {
		t.Fatalf("one.txt: %q %v", got, err)
	}
	// Answered in the terminal, the pages' cards close and say so.
	tm.waitIdle(10 * time.Second)
	tm.ask("write two")
	do(t, a, "the second card", until(`document.querySelector('.approval') !== null`))
	tm.answer("y")
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "the card closes, answered in the terminal", until(`document.querySelector('.approval') === null`),
			logHas("approved (in the terminal)"), logHas("wrote two"))
	}
	// An edit in the terminal reaches the pages.
	tm.waitIdle(10 * time.Second)
	tm.ask("/undo")
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "the pages follow /undo", until(`!document.getElementById('log').textContent.includes('wrote two')`))
	}
	tm.keys("C-u")
	do(t, a, "a turn from the browser", until(`document.getElementById('stop').disabled`), send("talk slowly", false))
	<-slow.Entered()
	tm.waitFor("talk slowly", 10*time.Second)
	tm.ask("typed in the terminal")
	do(t, b, "the terminal's text is pending in the page",
		until(`document.getElementById('pending').innerText.includes('typed in the terminal')`),
		send("queued in the browser", true))
	tm.waitFor("queued in the browser", 10*time.Second)
	do(t, a, "and in the other page", until(`document.getElementById('pending').innerText.includes('queued in the browser')`))
	tm.keys("C-c")
	wantHangup(t, srv, "after Ctrl+C in the terminal")
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "the turn stopped for the page too", logHas("cancelled"), until(`document.getElementById('stop').disabled`))
	}
	// And Stop in a page stops the terminal's turn.
	tm.waitIdle(10 * time.Second)
	tm.keys("C-u")
	tm.ask("again slowly")
	<-again.Entered()
	do(t, b, "Stop in the page", until(`!document.getElementById('stop').disabled`), chromedp.Click(chromedp.CSS("#stop")))
	wantHangup(t, srv, "after Stop in a page")
	deadline := time.Now().Add(40 * time.Second)
	for strings.Count(tm.screen(), "cancelled") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never said the second turn was cancelled:\n%s", tm.screen())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// TestServeTimelineDiffAndRewind: the turns panel lists the files each
// turn changed; a turn's diff opens on click; rewind first previews what
// it would put back and what it leaves alone (a file the person changed
// since), then does it, files and conversation.
func TestServeTimelineDiffAndRewind(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		call("s1", "run_shell", `{"command":"printf 'one\\n' > notes.txt"}`), oaitest.Answer{Text: "first done"},
		call("s2", "run_shell", `{"command":"printf 'two\\n' >> notes.txt; printf 'x\\n' > extra.txt"}`), oaitest.Answer{Text: "second done"})
	s := startServe(t, srv)
	ctx := browser(t, 1280, 800)
	do(t, ctx, "two turns that change files",
		chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		send("make notes", false), logHas("first done"), until(`document.getElementById('stop').disabled`),
		send("add to them", false), logHas("second done"), until(`document.getElementById('stop').disabled`),
		chromedp.Click(chromedp.CSS("#menu")),
		until(`document.getElementById('turns').innerText.includes('+ extra.txt') && document.getElementById('turns').innerText.includes('~ notes.txt')`),
		chromedp.Click(chromedp.CSS(`#turns li:nth-child(2) button[data-action="diff"]`)),
		until(`[...document.querySelectorAll('#turns pre.diff .add')].some(s => s.textContent.startsWith('+two'))`))
	if err := os.WriteFile(filepath.Join(s.dir, "extra.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "the rewind's preview",
		chromedp.Click(chromedp.CSS(`#turns li:nth-child(2) button[data-action="rewind"]`)),
		until(`document.querySelector('.rewind') !== null`))
	preview := eval[string](t, ctx, `document.querySelector('.rewind').innerText`)
	if !strings.Contains(preview, "puts back ~ notes.txt") || !strings.Contains(preview, "leaves alone (changed since): extra.txt") {
		t.Fatalf("the preview says:\n%s", preview)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "notes.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("the preview changed notes.txt: %q", b)
	}
	do(t, ctx, "rewind files and conversation",
		chromedp.Click(chromedp.CSS(`.rewind button[data-action="rewind-both"]`)),
		until(`!document.getElementById('log').textContent.includes('second done')`),
		until(`document.getElementById('input').value.includes('add to them')`))
	if b, _ := os.ReadFile(filepath.Join(s.dir, "notes.txt")); string(b) != "one\n" {
		t.Errorf("notes.txt after the rewind: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, "extra.txt")); string(b) != "mine\n" {
		t.Errorf("extra.txt (changed by the person since) after the rewind: %q", b)
	}
}

// TestServeAsAnOrdinaryUser: chat serve run by an ordinary user (and by
// root): a command the page's turn runs is boxed (it writes in the
// working directory, not beside it), and the session file is the user's
// own, readable by nobody else.
func TestServeAsAnOrdinaryUser(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t,
				call("s1", "run_shell", `{"command":"printf 'in\\n' > made.txt; printf 'out\\n' > ../outside.txt; echo tried"}`),
				oaitest.Answer{Text: "finished"})
			r := newUserRun(t, u, srv)
			s := startServeIn(t, r.command())
			ctx := browser(t, 1280, 800)
			do(t, ctx, "a turn that writes", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
				send("write", false), logHas("finished"), until(`document.getElementById('stop').disabled`))
			if b, err := os.ReadFile(filepath.Join(r.dir, "made.txt")); err != nil || string(b) != "in\n" {
				t.Fatalf("made.txt: %q %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(r.dir, "..", "outside.txt")); err == nil {
				t.Fatal("the boxed command wrote outside the working directory")
			}
			files, _ := filepath.Glob(filepath.Join(r.home, ".local", "share", "chat", "sessions", "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("session files: %v", files)
			}
			st, err := os.Stat(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if owner := st.Sys().(*syscall.Stat_t).Uid; int(owner) != u.UID || st.Mode().Perm()&0o077 != 0 {
				t.Fatalf("the session file is owned by %d with mode %v; want the user's (%d), private", owner, st.Mode().Perm(), u.UID)
			}
		})
	}
}

// TestServeListsOnlyThisDirectory: the page lists and opens the working
// directory's sessions, never another directory's, and starts new ones.
func TestServeListsOnlyThisDirectory(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "fresh answer"})
	cmd := command(t, srv)
	home := envOf(cmd.Env, "HOME")
	seedSession(t, home, cmd.Dir, 3)
	seedSession(t, home, t.TempDir(), 5) // another project's
	s := startServeIn(t, cmd)
	ctx := browser(t, 1280, 800)
	do(t, ctx, "the list", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.Click(chromedp.CSS("#menu")), until(`document.querySelectorAll('#sessions li').length >= 1`))
	list := eval[string](t, ctx, `document.getElementById('sessions').innerText`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#sessions li').length`); n != 2 || !strings.Contains(list, "· 6 messages") || strings.Contains(list, "· 10 messages") {
		t.Fatalf("the list shows %d sessions, want this directory's saved one and the one open:\n%s", n, list)
	}
	do(t, ctx, "open it", chromedp.Click(chromedp.CSS("#sessions li:not(.current)")), logHas("question 2: what does"),
		until(`document.getElementById('title').textContent.startsWith('question 0')`))
	others := eval[int](t, ctx, `(async () => {
		const ids = (await (await fetch('/api/sessions')).json()).map(s => s.id);
		const all = await (await fetch('/api/state')).json();
		return ids.length + (ids.includes(all.session.id) ? 0 : 100); })()`)
	if others != 2 {
		t.Fatalf("after opening it the list has %d (100+: the open one is not in it)", others)
	}
	do(t, ctx, "a new session", chromedp.Click(chromedp.CSS("#new-session")),
		until(`!document.getElementById('log').textContent.includes('question 2')`),
		send("hello again", false), logHas("fresh answer"))
	reqs := srv.Requests()
	if u := userTexts(reqs[len(reqs)-1]); len(u) != 1 {
		t.Fatalf("the new session's request carries %d user messages, want only its own: %q", len(u), u)
	}
}
