package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/oaitest"
)

func TestServeRendersATurnAndFitsAPhone(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Reasoning: "The person wants notes; I will write them and check.",
			Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"printf 'first note\\n' > notes.txt && wc -l notes.txt"}`}}},
		oaitest.Answer{Text: "I wrote **notes.txt** with one line. To read it:\n\n```go\ndata, err := os.ReadFile(\"notes.txt\")\nif err != nil {\n\treturn err\n}\nfmt.Print(string(data))\n```\n\n| file | lines |\n|---|---|\n| notes.txt | 1 |\n"})
	s := startServe(t, srv)
	ctx := chromium(t, 1280, 800)
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
// TestServeNobodyElseGetsIn: without a sign-in link nothing answers; a
// link works once; the cookie it gives is HttpOnly, SameSite=Strict and
// scoped to the page's secret path, and is worth nothing without that
// path; a request naming another host (DNS rebinding) or from another
// origin is refused; no secret in any answer.
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
	if again := get("/?token="+tok, nil); again.StatusCode != http.StatusUnauthorized {
		t.Errorf("the sign-in link used a second time: %d, want 401", again.StatusCode)
	}
	page := login.Header.Get("Location") // /s/<secret>/
	if !regexp.MustCompile(`^/s/[0-9a-f]{64}/$`).MatchString(page) {
		t.Fatalf("the sign-in leads to %q, not a secret path", page)
	}
	setCookie := login.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=" + page} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	cookie := login.Cookies()[0]
	withCookie := func(r *http.Request) { r.AddCookie(cookie) }
	// The cookie without the path, or the path with a guessed secret, is
	// what a server on another port of this host could have: nothing.
	for _, p := range []string{"/", "/api/state", "/s/" + strings.Repeat("0", 64) + "/api/state", strings.TrimSuffix(page, "/") + "x/api/state"} {
		if r := get(p, withCookie); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s with the cookie: %d, want 401", p, r.StatusCode)
		}
	}
	if r := get(page+"api/state", nil); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("the secret path without the cookie: %d, want 401", r.StatusCode)
	}
	s.base += strings.TrimSuffix(page, "/")
	front := get("/", withCookie)
	if front.StatusCode != 200 {
		t.Fatalf("the page with the cookie: %d", front.StatusCode)
	}
	csp := front.Header.Get("Content-Security-Policy")
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
	origin := "http://" + u.Host
	if c := post(origin, `{"text":"`+strings.Repeat("x", 5<<20)+`"}`); c != http.StatusRequestEntityTooLarge {
		t.Errorf("a 5 MiB body: %d, want 413", c)
	}
	if c := post(origin, `{"text":"hello"}`); c != http.StatusNoContent {
		t.Fatalf("a POST from the page: %d, want 204", c)
	}
	// The turn's whole stream, read until it ends (no fixed wait).
	events := get("/api/events?after=0", func(r *http.Request) {
		withCookie(r)
		ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
		t.Cleanup(cancel)
		*r = *r.WithContext(ctx)
	})
	var stream strings.Builder
	sc := bufio.NewScanner(events.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && !strings.Contains(sc.Text(), `"type":"turn_done"`) {
		stream.WriteString(sc.Text() + "\n")
	}
	if !strings.Contains(stream.String(), `"type":"assistant"`) || strings.Contains(stream.String(), "sk-test-secret") {
		t.Errorf("the event stream (an answer, no secret):\n%s", stream.String())
	}
	for _, p := range []string{"/", "/api/state", "/api/sessions", "/api/turns", "/assets/app.js"} {
		body, _ := io.ReadAll(get(p, withCookie).Body)
		if strings.Contains(string(body), "sk-test-secret") {
			t.Errorf("%s shows the API key", p)
		}
	}
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
	ctx := chromium(t, 1280, 800)
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
		return eval[int](t, ctx, `(async () => { const li = [...document.querySelectorAll('#pending li')]; const r = await fetch('api/pending', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(`+body+`)}); return r.status; })()`)
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
	ctx := chromium(t, 1280, 800)
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
	ctx := chromium(t, 1280, 800)
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
	// The session's title is the model's words too.
	srv.SetTitle("<img src=x onerror=window.__pwned=14>")
	s := startServeConfig(t, srv, "[agents.helper]\ninstructions = \"help\"\ntools = [\"list_files\"]\n")
	ctx := chromium(t, 1280, 800)
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
		until(`document.getElementById('sessions').innerText.includes('window.__pwned=14')`),
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

// TestServeOnAPhoneKeepsTheNewestInView: on a phone the input's hint
// fits its width, and pending rows taking the log's room keep the newest
// message in view.
func TestServeOnAPhoneKeepsTheNewestInView(t *testing.T) {
	t.Parallel()
	held := oaitest.NewGate()
	long := strings.Repeat("a line of the answer\n\n", 60)
	srv := oaitest.New(t, oaitest.Answer{Text: long + "the last line"}, oaitest.Answer{Text: "slow", Gate: held, GateAfter: 1})
	s := startServe(t, srv)
	ctx := chromium(t, 390, 844)
	do(t, ctx, "a long answer", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		send("answer at length", false), logHas("the last line"), until(`document.getElementById('stop').disabled`))
	if hint := eval[string](t, ctx, `document.getElementById('input').placeholder`); hint != "Message · Enter sends" {
		t.Fatalf("the phone's placeholder: %q", hint)
	}
	fits := eval[bool](t, ctx, `(() => { const i = document.getElementById('input'); const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(i).font; return c.measureText(i.placeholder).width < i.clientWidth; })()`)
	if !fits {
		t.Fatal("the placeholder is cut on a phone")
	}
	do(t, ctx, "a slow turn, and three queued lines",
		send("another question", false))
	<-held.Entered()
	do(t, ctx, "queue",
		send("queued one", true), send("queued two", true), send("queued three", true),
		until(`document.querySelectorAll('#pending li').length === 3`))
	// Once the page has drawn what came (a frame under load), the newest
	// message is in view.
	do(t, ctx, "the newest message stays in view",
		until(`(() => { const l = document.getElementById('log'); return l.scrollHeight - l.scrollTop - l.clientHeight < 80; })()`))
	held.Release()
}
