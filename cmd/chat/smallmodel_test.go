package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestSmallModelTitlesTheSession: in the REPL, once the first turn is
// answered, the small model names the session (the request names it);
// the name is what chat sessions list shows, and a second turn asks for
// no other.
func TestSmallModelTitlesTheSession(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "Use a sync.WaitGroup."}, oaitest.Answer{Text: "Yes."})
	srv.SetTitle("Waiting for goroutines in Go")
	tm := startTerm(t, srv, "--small-model", "tiny-model")
	tm.ask("how do I wait for my goroutines to finish before main returns?")
	tm.waitFor("sync.WaitGroup", time.Minute)
	deadline := time.Now().Add(time.Minute)
	for len(srv.TitleRequests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no title was asked for")
		}
		time.Sleep(20 * time.Millisecond)
	}
	req := srv.TitleRequests()[0]
	if req.Model != "tiny-model" || len(req.Tools) != 0 || !strings.Contains(req.Messages[1].Text(), "wait for my goroutines") || !strings.Contains(req.Messages[1].Text(), "sync.WaitGroup") {
		t.Fatalf("the title request: model %q, %d tools, %q", req.Model, len(req.Tools), req.Messages[1].Text())
	}
	if main := srv.Requests()[0].Model; main != "scripted-model" {
		t.Fatalf("the turn went to %q", main)
	}
	tm.ask("and with errgroup?")
	tm.waitFor("Yes.", time.Minute)
	// /cost says what each model spent.
	tm.ask("/cost")
	tm.waitFor("  tiny-model input", time.Minute)
	tm.waitFor("  scripted-model input", time.Minute)
	tm.ask("/quit")
	tm.exitStatus(time.Minute)
	list, _, _ := run(t, inHome(t, command(t, srv, "sessions", "list"), tm.home, tm.dir))
	if !strings.Contains(list, "Waiting for goroutines in Go") {
		t.Fatalf("sessions list:\n%s", list)
	}
	if n := len(srv.TitleRequests()); n != 1 {
		t.Fatalf("%d title requests", n)
	}
}

// TestSmallModelSummarizes: with small_model set, /compact's summary is
// the small model's request; the turns stay with the model.
func TestSmallModelSummarizes(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "first answer"}, oaitest.Answer{Text: "second answer"}, oaitest.Answer{Text: "the summary"})
	home, dir := t.TempDir(), t.TempDir()
	for _, q := range []string{"first question", "second question"} {
		if out, errOut, code := run(t, inHome(t, command(t, srv, "--continue", "-p", q), home, dir)); code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", q, code, out, errOut)
		}
	}
	if out, errOut, code := run(t, inHome(t, command(t, srv, "--continue", "--small-model", "tiny-model", "-p", "/compact"), home, dir)); code != 0 {
		t.Fatalf("/compact: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Model != "scripted-model" || reqs[2].Model != "tiny-model" {
		var models []string
		for _, r := range reqs {
			models = append(models, r.Model)
		}
		t.Fatalf("models asked: %v", models)
	}
	if n := len(srv.TitleRequests()); n != 0 {
		t.Fatalf("print mode asked for %d titles", n)
	}
}

// TestServeTitleIsTheModels: the page's title is the name the model gave
// the session after its first turn, not the raw first message.
func TestServeTitleIsTheModels(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "Here is how."})
	srv.SetTitle("Rotating logs with logrotate")
	s := startServe(t, srv)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "a first turn names the page",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS("#input")),
		send("hey so um how do I make my logs not fill the disk, they keep growing forever on the server", false),
		logHas("Here is how."),
		until(`document.title === 'Rotating logs with logrotate · chat'`),
		until(`document.getElementById('title').textContent === 'Rotating logs with logrotate'`),
	)
}

// TestSmallModelSynthesizes: when the step budget runs out, the answer
// written from what was gathered is the small model's request.
func TestSmallModelSynthesizes(t *testing.T) {
	t.Parallel()
	look := oaitest.Answer{Calls: []oaitest.Call{{ID: "l1", Name: "list_files", Args: `{"path":"."}`}}}
	again := oaitest.Answer{Calls: []oaitest.Call{{ID: "l2", Name: "list_files", Args: `{"path":"."}`}}}
	srv := oaitest.New(t, look, again, oaitest.Answer{Text: "what I found"})
	out, errOut, code := run(t, command(t, srv, "--max-steps", "1", "--small-model", "tiny-model", "-p", "look around"))
	if code != 0 || !strings.Contains(out, "what I found") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Model != "scripted-model" || reqs[1].Model != "scripted-model" || reqs[2].Model != "tiny-model" || len(reqs[2].Tools) != 0 {
		var models []string
		for _, r := range reqs {
			models = append(models, r.Model)
		}
		t.Fatalf("models asked: %v", models)
	}
}
