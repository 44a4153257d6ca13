package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// window is llama.cpp's default context size; the server refuses larger
// requests as llama.cpp does.
const window = 4096

func windowServer(t *testing.T) *oaitest.Server {
	srv := oaitest.New(t)
	srv.SetWindow(window)
	srv.SetFallback(oaitest.Talker{AnswerBytes: 1500}.Reply)
	return srv
}

func question(i int) string {
	q := fmt.Sprintf("question %d about topic %d", i, i)
	if i%7 == 0 {
		q += " USE TOOL"
	}
	return q
}

// onlySession loads the one session saved under home.
func onlySession(t *testing.T, home string) session.Loaded {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".local", "share", "chat", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	l, err := session.Load(files[0])
	if err != nil || len(l.Warnings) > 0 {
		t.Fatal(err, l.Warnings)
	}
	return l
}

// wantWholeHistory: the file holds every question and answer of n turns,
// and at least one compaction record.
func wantWholeHistory(t *testing.T, l session.Loaded, n int) {
	t.Helper()
	var questions, answers, summaries int
	for _, m := range l.Messages {
		switch {
		case m.Role == session.RoleUser:
			questions++
		case m.Role == session.RoleAssistant && strings.HasPrefix(m.Content, "Answer to question"):
			answers++
		case m.Role == session.RoleSummary:
			summaries++
		}
	}
	if questions != n || answers != n || summaries == 0 {
		t.Fatalf("the session file holds %d questions, %d answers, %d summaries", questions, answers, summaries)
	}
}

// wantSummarySent: the last request carried the summary (which covers the
// first question) and not the first exchange itself.
func wantSummarySent(t *testing.T, srv *oaitest.Server) {
	t.Helper()
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if sys := last.Messages[0].Text(); !strings.Contains(sys, session.SummaryHeading) || !strings.Contains(sys, "asked question 1 about topic 1;") {
		t.Fatalf("the summary was not sent: %.300s", sys)
	}
	for _, m := range last.Messages[1:] {
		if strings.HasPrefix(m.Text(), "question 1 about") {
			t.Fatal("the first question was sent again")
		}
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// TestPrintModeLongConversation: thirty `chat --continue -p` runs of long
// answers against a 4,096-token server. With the window known (a flag, or
// the server says it and print mode asks, as llama-server does), no request
// is refused; without it, each refusal compacts and retries once. Every
// turn is answered, the file keeps every word, and a continued session
// sends the summary and the recent turns.
func TestPrintModeLongConversation(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"flag", "server", "unknown"} {
		known := how != "unknown"
		t.Run("window "+how, func(t *testing.T) {
			t.Parallel()
			srv := windowServer(t)
			if how == "server" { // llama-server's /props: print mode asks it
				srv.SayWindow()
			}
			home, dir := t.TempDir(), t.TempDir()
			compacted := 0
			for i := 1; i <= 30; i++ {
				args := []string{"--continue", "-p", question(i)}
				if how == "flag" {
					args = append([]string{"--context-window", fmt.Sprint(window)}, args...)
				}
				out, errOut, code := run(t, inHome(t, command(t, srv, args...), home, dir))
				if code != 0 || !strings.HasPrefix(out, "Answer to question "+fmt.Sprint(i)) {
					t.Fatalf("turn %d: exit %d\n%.200s\n%s", i, code, out, errOut)
				}
				compacted += strings.Count(errOut, "⇣ compacted")
			}
			if known && srv.Overflows() != 0 {
				t.Fatalf("%d requests over the window", srv.Overflows())
			}
			if !known && (srv.Overflows() == 0 || compacted != srv.Overflows()) {
				t.Fatalf("%d overflows, %d compactions announced", srv.Overflows(), compacted)
			}
			if compacted == 0 {
				t.Fatal("no compaction was announced on stderr")
			}
			l := onlySession(t, home)
			wantWholeHistory(t, l, 30)
			wantSummarySent(t, srv)
			show, _, _ := run(t, inHome(t, command(t, srv, "sessions", "show", l.Header.ID), home, dir))
			if !strings.Contains(show, "⇣ [compacted: the ") || !strings.Contains(show, "› question 1 about topic 1\n") {
				t.Fatalf("sessions show:\n%.2000s", show)
			}
		})
	}
}

// TestTUILongConversation: the same thirty turns typed in the REPL; then
// /context shows the summary and /compact folds what is left, with a
// notice; the file keeps everything.
func TestTUILongConversation(t *testing.T) {
	t.Parallel()
	srv := windowServer(t)
	tm := startTerm(t, srv, "--context-window", fmt.Sprint(window), "--yes")
	for i := 1; i <= 30; i++ {
		tm.ask(question(i))
		tm.waitFor(fmt.Sprintf("Answer to question %d about", i), 10*time.Second)
	}
	if srv.Overflows() != 0 {
		t.Fatalf("%d requests over the window", srv.Overflows())
	}
	tm.waitFor("compacted", 5*time.Second)
	tm.promptAndStatusIntact("after thirty turns")
	tm.ask("/context")
	tm.waitFor("stands for", 5*time.Second)
	tm.waitIdle(10 * time.Second) // /compact waits for the turn to end
	tm.ask("/compact keep the topic numbers")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(lastRequestText(srv), "keep the topic numbers") {
		if time.Now().After(deadline) {
			t.Fatalf("/compact did not send its instructions; the screen:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.ask(question(31))
	tm.waitFor("Answer to question 31 about", 10*time.Second)
	tm.keys("C-d")
	tm.exitStatus(10 * time.Second)
	l := onlySession(t, tm.home)
	wantWholeHistory(t, l, 31)
	if s, _ := session.LatestSummary(l.Messages); s.Compaction == nil || s.Compaction.Instructions != "keep the topic numbers" {
		t.Fatalf("the manual compaction was not recorded: %+v", s)
	}
	wantSummarySent(t, srv)
}

func lastRequestText(srv *oaitest.Server) string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		b.WriteString(m.Text())
	}
	return b.String()
}

// TestTUICompactCancelled: Ctrl+C while /compact waits for its summary
// stops it at once; nothing is summarized and the next question works.
func TestTUICompactCancelled(t *testing.T) {
	t.Parallel()
	srv := windowServer(t)
	tm := startTerm(t, srv, "--context-window", fmt.Sprint(window))
	for i := 1; i <= 2; i++ {
		tm.ask(question(i))
		tm.waitFor(fmt.Sprintf("Answer to question %d about", i), 10*time.Second)
	}
	gate := oaitest.NewGate()
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "<transcript>") {
			return oaitest.Answer{Text: "Summary: never finished", Gate: gate}
		}
		return oaitest.Talker{AnswerBytes: 1500}.Reply(req)
	})
	tm.waitIdle(10 * time.Second)
	tm.ask("/compact")
	select {
	case <-gate.Entered():
	case <-time.After(10 * time.Second):
		t.Fatalf("/compact never asked for a summary:\n%s", tm.screen())
	}
	tm.keys("C-c")
	wantHangup(t, srv, "of the summary after Ctrl+C")
	tm.waitFor("cancelled", 5*time.Second)
	tm.ask(question(3))
	tm.waitFor("Answer to question 3 about", 10*time.Second)
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; strings.Contains(last.Messages[0].Text(), session.SummaryHeading) || last.Shape() != "system user assistant user assistant user" {
		t.Fatalf("after a cancelled /compact the request is %s", last.Shape())
	}
}

// TestLongConversationNeverDeadEnds: 25 turns through a 4,096-token window
// that refuses larger requests with a 400, with a summarizer that echoes
// everything it is given (the worst case: its summaries never shrink on
// their own): every turn answers, and the compaction records say what
// they did.
func TestLongConversationNeverDeadEnds(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(4096)
	srv.SetFallback(oaitest.Echoer{AnswerBytes: 1500}.Reply)
	home, dir := t.TempDir(), t.TempDir()
	for i := 1; i <= 25; i++ {
		args := []string{"--continue", "-p", fmt.Sprintf("question %d: %s", i, strings.Repeat("tell me more about the build. ", 8))}
		out, errOut, code := run(t, inHome(t, command(t, srv, args...), home, dir))
		if code != 0 || !strings.Contains(out, fmt.Sprintf("Answer to question %d", i)) {
			t.Fatalf("turn %d: exit %d\n%s\n%s", i, code, out, errOut)
		}
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
	show, _, _ := run(t, inHome(t, command(t, srv, "sessions", "list"), home, dir))
	if !strings.Contains(show, "question 1") {
		t.Fatalf("sessions list:\n%s", show)
	}
}

// TestTUICompactsBeforeTheRefusal: the REPL learns the window from the
// server (llama-server's /props), as print mode does, and compacts before
// a request would pass it: thirty turns, no refusal in the server's log
// (turns 14 and 25 were refused first, then compacted and retried).
func TestTUICompactsBeforeTheRefusal(t *testing.T) {
	t.Parallel()
	srv := windowServer(t)
	srv.SayWindow()
	tm := startTerm(t, srv, "--yes")
	for i := 1; i <= 30; i++ {
		tm.ask(question(i))
		tm.waitFor(fmt.Sprintf("Answer to question %d about", i), 10*time.Second)
	}
	if srv.Overflows() != 0 {
		t.Fatalf("%d requests over the window", srv.Overflows())
	}
	tm.waitFor("compacted", 5*time.Second)
}
