package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestTUINotifies: the terminal's raw output (tmux pipe-pane) carries the
// notification when a turn ends and when an approval waits, in the form
// asked for; once the terminal reports focus (DEC mode 1004's focus-in,
// sent as a terminal sends it) there is none.
func TestTUINotifies(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Text: "The first answer."},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"x\n"}`}}},
		oaitest.Answer{Text: "Written."},
		oaitest.Answer{Text: "Seen while you looked."})
	tm := startTermConfig(t, srv, "", "[notify]\nmin_turn = \"1ns\"\nmethod = \"osc777\"\n")
	raw := filepath.Join(t.TempDir(), "raw")
	tm.tmux("pipe-pane", "-O", "-t", "main", "cat >> "+raw)
	rawHas := func(s string) bool {
		b, _ := os.ReadFile(raw)
		return strings.Contains(string(b), s)
	}
	waitRaw := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !rawHas(s); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(raw)
				t.Fatalf("no %q in the terminal's output; it ends:\n%q", s, b[max(0, len(b)-2000):])
			}
		}
	}
	tm.ask("first")
	tm.waitFor("The first answer.", time.Minute)
	waitRaw("\x1b]777;notify;chat;The first answer.\x07")
	tm.ask("write it")
	tm.waitFor("write_file", time.Minute)
	waitRaw("\x1b]777;notify;chat: your answer is wanted;create a.txt (1 line)\x07")
	tm.answer("y")
	tm.waitFor("Written.", time.Minute)
	waitRaw("\x1b]777;notify;chat;Written.\x07")
	// The terminal says it has focus: the person is looking.
	tm.tmux("send-keys", "-t", "main", "-H", "1b", "5b", "49")
	tm.ask("third")
	tm.waitFor("Seen while you looked.", time.Minute)
	tm.waitIdle(time.Minute)
	if rawHas("notify;chat;Seen while you looked.") {
		t.Fatal("a notification went out while the terminal reported focus")
	}
}

// notificationStub stands in for the browser's Notification (headless
// Chromium shows none) and lets the test say whether the tab is hidden.
const notificationStub = `
window.__notes = []; window.__asked = 0; window.__perm = 'default'; window.__hidden = false;
window.Notification = class {
  constructor(title, o) { window.__notes.push(title + ': ' + (o && o.body)); }
  static get permission() { return window.__perm; }
  static requestPermission() { window.__asked++; window.__perm = 'granted'; return Promise.resolve('granted'); }
};
Object.defineProperty(document, 'hidden', {get: () => window.__hidden});
`

// TestServeNotifies: the page asks the browser's permission once, on a
// click, and tells the person a turn ended only while its tab is hidden.
func TestServeNotifies(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "Seen while you looked."}, oaitest.Answer{Text: "Done while you were away."})
	s := startServe(t, srv)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "a turn with the tab in view",
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: notificationStub})
			return err
		}),
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.Click(chromedp.CSS("#input")),
		send("first", false),
		logHas("Seen while you looked."),
		until(`document.getElementById('stop').disabled`),
	)
	if asked := eval[int](t, ctx, `window.__asked`); asked != 1 {
		t.Fatalf("permission asked %d times", asked)
	}
	if notes := eval[[]string](t, ctx, `window.__notes`); len(notes) != 0 {
		t.Fatalf("told while the tab was in view: %v", notes)
	}
	do(t, ctx, "a turn with the tab hidden",
		chromedp.Click(chromedp.CSS("#input")),
		until(`(window.__hidden = true)`),
		send("second", false),
		logHas("Done while you were away."),
		until(`window.__notes.length === 1`),
	)
	if notes := eval[[]string](t, ctx, `window.__notes`); !strings.Contains(notes[0], "chat: the turn ended: Done while you were away.") {
		t.Fatalf("told: %v", notes)
	}
	if asked := eval[int](t, ctx, `window.__asked`); asked != 1 {
		t.Fatalf("permission asked %d times", asked)
	}
}
