package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

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
	a := chromium(t, 1280, 800)
	b := tab(t, a)
	do(t, a, "open the shared session", chromedp.Navigate(addr), chromedp.WaitVisible(chromedp.CSS("#input")))
	// The sign-in link works once; the second tab opens the page itself,
	// with the first one's cookie.
	do(t, b, "open it in a second tab", chromedp.Navigate(eval[string](t, a, `location.href`)), chromedp.WaitVisible(chromedp.CSS("#input")))
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
	for _, ctx := range []context.Context{a, b} {
		do(t, ctx, "the pages say where it was stopped", logHas("stopped in the browser"))
	}
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
	ctx := chromium(t, 1280, 800)
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
			ctx := chromium(t, 1280, 800)
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
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "the list", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.Click(chromedp.CSS("#menu")), until(`document.querySelectorAll('#sessions li').length >= 1`))
	list := eval[string](t, ctx, `document.getElementById('sessions').innerText`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#sessions li').length`); n != 2 || !strings.Contains(list, "· 6 messages") || strings.Contains(list, "· 10 messages") {
		t.Fatalf("the list shows %d sessions, want this directory's saved one and the one open:\n%s", n, list)
	}
	do(t, ctx, "open it", chromedp.Click(chromedp.CSS("#sessions li:not(.current)")), logHas("question 2: what does"),
		until(`document.getElementById('title').textContent.startsWith('question 0')`))
	others := eval[int](t, ctx, `(async () => {
		const ids = (await (await fetch('api/sessions')).json()).map(s => s.id);
		const all = await (await fetch('api/state')).json();
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

// TestServeDiffAfterACrash: chat serve killed (-9) in the middle of a
// command; `chat serve --continue` and its page show the turn's diff as
// the files are now: one appended line and a one-line new file (it drew
// the appended file as emptied and the new one as empty).
func TestServeDiffAfterACrash(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, call("s1", "run_shell", `{"command":"echo appended >> k.txt; echo m > m.txt; sleep 60","timeout_seconds":300}`))
	first := command(t, srv)
	if err := os.WriteFile(filepath.Join(first.Dir, "k.txt"), []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, dir := slices.Clone(first.Env), first.Dir
	s := startServeIn(t, first)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "a command that is cut short", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")), send("append and wait", false))
	waitUntil(t, "the command wrote m.txt", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "m.txt"))
		return string(b) == "m\n"
	})
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	again := command(t, srv)
	again.Env, again.Dir = env, dir
	s2 := startServeIn(t, again, "--continue")
	do(t, ctx, "the crashed turn's diff", chromedp.Navigate(s2.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.Click(chromedp.CSS("#menu")),
		until(`document.getElementById('turns').innerText.includes('+ m.txt')`),
		chromedp.Click(chromedp.CSS(`#turns li:nth-child(1) button[data-action="diff"]`)),
		until(`document.querySelectorAll('#turns pre.diff').length > 0`))
	diff := eval[string](t, ctx, `[...document.querySelectorAll('#turns pre.diff')].map(p => p.textContent).join('\n')`)
	if !strings.Contains(diff, "+appended") || !strings.Contains(diff, "+m") || strings.Contains(diff, "-orig") {
		t.Fatalf("the diff after the crash:\n%s", diff)
	}
}
