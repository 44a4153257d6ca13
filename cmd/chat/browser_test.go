package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

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

// chromium is a headless Chromium of its own (Debian's chromium) at w×h.
func chromium(t testing.TB, w, h int) context.Context {
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
		typed, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById('input') || {}).value || ''`))
		t.Fatalf("%s: %v\nthe page shows:\n%s\nthe input holds: %q", what, err, shown, typed)
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
	return chromedp.Steps(chromedp.SendKeys(chromedp.CSS("#input"), text), pressEnter(alt))
}

// pressEnter presses Enter as a keyboard does: one key-down that carries
// the text, so a page's preventDefault keeps the line break out of the
// input. (chromedp's KeyEvent sends the character as an event of its
// own, which no handler can refuse: a "\n" typed after the page had
// cleared the input.)
func pressEnter(alt bool) step {
	var mods int64
	if alt {
		mods = int64(chromedp.ModifierAlt)
	}
	key := func(t input.DispatchKeyEventType, text string) input.DispatchKeyEventParams {
		return input.DispatchKeyEventParams{Type: t, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13,
			NativeVirtualKeyCode: 13, Text: text, UnmodifiedText: text, Modifiers: mods}
	}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, k := range []input.DispatchKeyEventParams{key(input.DispatchKeyEventTypeKeyDown, "\r"), key(input.DispatchKeyEventTypeKeyUp, "")} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, k); err != nil {
				return err
			}
		}
		return nil
	})
}

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
