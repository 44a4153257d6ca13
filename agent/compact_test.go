package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// smallWindow is llama.cpp's default context size.
const smallWindow = 4096

// talkRig is an agent on a server that refuses requests past smallWindow.
func talkRig(t *testing.T, knowWindow bool, tools ...tool.Tool) (*rig, *oaitest.Server) {
	t.Helper()
	r := newRig(t, tools)
	r.srv.SetWindow(smallWindow)
	r.srv.SetFallback(oaitest.Talker{AnswerBytes: 1500}.Reply)
	if knowWindow {
		r.agent.SetContextWindow(smallWindow)
	}
	return r, r.srv
}

// converse asks n questions (every fifth one makes the model call a tool)
// and checks each got its own answer.
func converse(t *testing.T, r *rig, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("question %d about topic %d", i, i)
		if i%5 == 0 {
			q += " USE TOOL"
		}
		res, err := r.agent.Run(context.Background(), q)
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if !strings.HasPrefix(res.Content, "Answer to "+q) && !strings.HasPrefix(res.Content, "Answer to question "+fmt.Sprint(i)) {
			t.Fatalf("turn %d answered %q", i, clipped(res.Content))
		}
	}
}

// needsRoom is a question that, after five exchanges, passes 80% of
// smallWindow: the next request compacts first.
var needsRoom = "question 6 that needs room " + strings.Repeat("x", 5000)

func clipped(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func compactions(r *rig) []listener.Compacted {
	var out []listener.Compacted
	for _, e := range r.rec.Events() {
		if c, ok := e.(listener.Compacted); ok {
			out = append(out, c)
		}
	}
	return out
}

// TestLongConversationIsCompacted: thirty long turns through a server with
// a 4,096-token window all succeed, no request is refused, every question
// and answer stays in history, and what is sent carries a summary that
// covers the earliest questions.
func TestLongConversationIsCompacted(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, true, newEcho("list_files"))
	converse(t, r, 30)
	if n := srv.Overflows(); n != 0 {
		t.Fatalf("%d requests were over the window", n)
	}
	if len(compactions(r)) == 0 {
		t.Fatal("never compacted")
	}
	for _, c := range compactions(r) {
		if c.After >= c.Before || c.Messages == 0 || c.Summary == 0 || c.Summary >= c.Folded {
			t.Fatalf("compaction %+v", c)
		}
	}
	msgs := r.agent.Session().Messages()
	if s, at := session.LatestSummary(msgs); at < 0 || s.Compaction.Through != msgs[at-1].ID || s.Compaction.From == "" {
		t.Fatalf("the record does not say what it stands for: %+v", s.Compaction)
	}
	var questions, answers int
	for _, m := range msgs {
		switch {
		case m.Role == session.RoleUser:
			questions++
		case m.Role == session.RoleAssistant && strings.HasPrefix(m.Content, "Answer to"):
			answers++
		}
	}
	if questions != 30 || answers != 30 {
		t.Fatalf("history holds %d questions and %d answers", questions, answers)
	}
	reqs := srv.Requests()
	lastSent := reqs[len(reqs)-1]
	if !strings.Contains(lastSent.Messages[0].Text(), "asked question 1 about topic 1;") {
		t.Fatalf("the summary lost the first question: %s", clipped(lastSent.Messages[0].Text()))
	}
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// TestOverflowErrorCompactsAndRetries: with the window unknown to chat,
// the server's overflow error is what triggers compaction: once per
// overflow, and the turn then succeeds.
func TestOverflowErrorCompactsAndRetries(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, false)
	converse(t, r, 12)
	if srv.Overflows() == 0 {
		t.Fatal("the window was never hit; the test proves nothing")
	}
	if got := len(compactions(r)); got != srv.Overflows() {
		t.Fatalf("%d overflows, %d compactions", srv.Overflows(), got)
	}
	if r.agent.ContextWindow() != smallWindow {
		t.Fatalf("learned window %d", r.agent.ContextWindow())
	}
}

// TestMessageTooLargeOnItsOwn: a message larger than the window, with
// nothing earlier to fold, fails with a message saying so; nothing is
// lost and the next message works.
func TestMessageTooLargeOnItsOwn(t *testing.T) {
	t.Parallel()
	r, _ := talkRig(t, true)
	_, err := r.agent.Run(context.Background(), strings.Repeat("a very long paste ", 2000))
	var tooLarge *agent.TooLargeError
	if !errors.As(err, &tooLarge) || !errors.Is(err, llm.ErrContextExceeded) || !strings.Contains(err.Error(), "too large on their own") {
		t.Fatalf("%v", err)
	}
	if msgs := r.agent.Session().Messages(); !msgs[len(msgs)-1].Unanswered {
		t.Fatal("the message was not kept, marked unanswered")
	}
	converse(t, r, 1)
}

// TestCompactionCancelled: Ctrl+C while the summary is being written ends
// the turn at once and leaves history as it was; the next turn works.
func TestCompactionCancelled(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, true)
	converse(t, r, 5)
	before := r.agent.Session().Messages()
	gate := oaitest.NewGate()
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "<transcript>") {
			return oaitest.Answer{Text: "Summary: never finished", Gate: gate}
		}
		return oaitest.Talker{AnswerBytes: 1500}.Reply(req)
	})
	done := runLater(r, needsRoom)
	waitEntered(t, gate, "no compaction started")
	r.agent.Cancel("test")
	wantCancelled(t, done, "cancel did not end the compaction")
	after := r.agent.Session().Messages()
	if len(after) != len(before)+1 || after[len(after)-1].Role != session.RoleUser {
		t.Fatalf("history changed: %d → %d messages", len(before), len(after))
	}
	if _, at := session.LatestSummary(after); at >= 0 {
		t.Fatal("a cancelled compaction left a summary")
	}
	srv.SetFallback(oaitest.Talker{AnswerBytes: 1500}.Reply)
	converse(t, r, 1)
}

// TestCompactionFailureLeavesHistory: a summary request that fails ends
// the turn with the error and no summary; nothing is lost.
func TestCompactionFailureLeavesHistory(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, true)
	converse(t, r, 5)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "<transcript>") {
			return oaitest.Fail{Status: 400, Message: "summaries are off today", Type: "invalid_request_error"}
		}
		return oaitest.Talker{AnswerBytes: 1500}.Reply(req)
	})
	_, err := r.agent.Run(context.Background(), needsRoom)
	if err == nil || !strings.Contains(err.Error(), "compacting the conversation") || !strings.Contains(err.Error(), "summaries are off today") {
		t.Fatal(err)
	}
	if _, at := session.LatestSummary(r.agent.Session().Messages()); at >= 0 {
		t.Fatal("a failed compaction left a summary")
	}
}

// TestManualCompact: /compact folds the whole conversation (a fresh start
// with the summary), with the person's instructions in the summarizing
// request; the next question is sent after the summary.
func TestManualCompact(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, false)
	converse(t, r, 3)
	o := r.agent.Compact(context.Background(), "keep the topics").Run()
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[len(reqs)-1].Messages[1].Text(), "keep the topics") {
		t.Fatal("the instructions were not sent")
	}
	c := compactions(r)
	if len(c) != 1 || !c[0].Manual || c[0].Messages != 6 {
		t.Fatalf("%+v", c)
	}
	if o := r.agent.Compact(context.Background(), "").Run(); !errors.Is(o.Err, agent.ErrNothingToCompact) {
		t.Fatalf("a second /compact: %v", o.Err)
	}
	p := r.agent.ContextReport()
	if p.Summary == 0 || p.Summarized != 6 || p.History != 0 || p.System == 0 {
		t.Fatalf("%+v", p)
	}
	converse(t, r, 1)
	reqs = srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user" {
		t.Fatalf("after /compact the request is %s", got)
	}
}

// bigTool answers every call with size bytes.
type bigTool struct {
	tool.Unreviewed
	size int
}

func (bigTool) Name() string        { return "read_file" }
func (bigTool) Description() string { return "reads" }
func (bigTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (bigTool) Timeout() time.Duration { return 0 }
func (b bigTool) Run(context.Context, json.RawMessage) (string, error) {
	return strings.Repeat("line of a large file\n", b.size/21+1)[:b.size], nil
}

// TestToolHeavyTurnFits: one turn whose tool results alone outgrow the
// window (eight reads of 3 KB, then one of 64 KB) is compacted between its
// steps and each oversized result is cut to fit: the turn is answered, no
// request is refused, and the strict server sees valid histories.
func TestToolHeavyTurnFits(t *testing.T) {
	t.Parallel()
	for _, size := range []int{3000, 64 << 10} {
		r, srv := talkRig(t, true, bigTool{size: size})
		steps := 0
		srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
			if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "<transcript>") {
				return oaitest.Talker{}.Reply(req)
			}
			if steps++; steps <= 8 {
				return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("call_%d", steps), Name: "read_file", Args: `{}`}}}
			}
			return oaitest.Answer{Text: "Answer to the reading: done"}
		})
		res, err := r.agent.Run(context.Background(), "read the whole repository")
		if err != nil || res.Content != "Answer to the reading: done" {
			t.Fatalf("size %d: %v %q", size, err, res.Content)
		}
		if srv.Overflows() != 0 || len(srv.Rejected()) > 0 {
			t.Fatalf("size %d: %d overflows, rejected %v", size, srv.Overflows(), srv.Rejected())
		}
		reqs := srv.Requests()
		if last := reqs[len(reqs)-1]; last.Messages[1].Role != "user" || last.Messages[1].Text() != "read the whole repository" {
			t.Fatalf("size %d: the last request does not open with the question: %s", size, last.Shape())
		}
		if len(compactions(r)) == 0 {
			t.Fatalf("size %d: never compacted", size)
		}
	}
}

// TestFirstRequestWaitsForTheWindow: while the window is being found, even
// the first request waits for it (the window decides which form of the
// tools it offers), and the tool result that follows is cut to it. A probe
// that never answers holds the request only for the wait it was given.
func TestFirstRequestWaitsForTheWindow(t *testing.T) {
	t.Parallel()
	for _, answers := range []bool{true, false} {
		r := newRig(t, []tool.Tool{bigTool{size: 64 << 10}})
		settled := make(chan struct{})
		wait := time.Hour
		if answers {
			go func() {
				r.agent.SetContextWindow(smallWindow)
				close(settled)
			}()
		} else {
			wait = 50 * time.Millisecond
		}
		r.agent.AwaitWindow(func() <-chan struct{} { return settled }, wait)
		r.srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
			if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
				return oaitest.Answer{Text: fmt.Sprintf("read %d bytes", len(last.Text()))}
			}
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "call_1", Name: "read_file", Args: `{}`}}}
		})
		if err := <-runLater(r, "read the big file"); err != nil {
			t.Fatal(err)
		}
		var got int
		if _, err := fmt.Sscanf(r.agent.Session().Messages()[r.agent.Session().Len()-1].Content, "read %d bytes", &got); err != nil {
			t.Fatal(err)
		}
		if answers && (got >= 64<<10 || got > smallWindow*4) {
			t.Fatalf("the tool result went out at %d bytes: it did not wait for the %d-token window", got, smallWindow)
		}
	}
}

// TestNothingShownBeforeTheQuestionIsSaved: the request goes out while
// its question is saved in the background, but the answer is not shown
// until the session has settled (here the save is held).
func TestNothingShownBeforeTheQuestionIsSaved(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, oaitest.Answer{Text: "the answer", Piece: 3})
	settling, saved := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.agent.Session().OnSettle(func() {
		once.Do(func() { close(settling) })
		<-saved
	})
	done := runLater(r, "a question")
	select {
	case <-settling:
	case <-time.After(30 * time.Second):
		t.Fatal("the answer was shown without settling the session")
	}
	for _, e := range r.rec.Events() {
		if _, ok := e.(listener.AssistantDelta); ok {
			t.Fatal("a piece of the answer was shown before its question was saved")
		}
	}
	close(saved)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r.agent.Session().Messages()[2].Content != "the answer" {
		t.Fatal(r.agent.Session().Messages())
	}
}

// runLater runs a turn of text in the background; its error arrives on
// the channel.
func runLater(r *rig, text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := r.agent.Run(context.Background(), text)
		done <- err
	}()
	return done
}

// waitEntered waits for a request to reach gate (what it is, for the
// failure).
func waitEntered(t *testing.T, gate *oaitest.Gate, failure string) {
	t.Helper()
	select {
	case <-gate.Entered():
	case <-time.After(30 * time.Second):
		t.Fatal(failure)
	}
}

// wantCancelled wants the turn on done to end cancelled, within 30 s.
func wantCancelled(t *testing.T, done <-chan error, failure string) {
	t.Helper()
	select {
	case err := <-done:
		if !errors.Is(err, control.ErrCancelled) {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal(failure)
	}
}

// TestTooLargeBlamesTheRightThing: the advice blames the message only
// when the turn alone exceeds the window.
func TestTooLargeBlamesTheRightThing(t *testing.T) {
	base := errors.New("400: too large")
	small := (&agent.TooLargeError{Err: base, Turn: 130, Window: 4096}).Error()
	if strings.Contains(small, "too large on their own") || !strings.Contains(small, "fits the 4096-token window") {
		t.Fatalf("a 130-token turn was blamed: %s", small)
	}
	big := (&agent.TooLargeError{Err: base, Turn: 5000, Window: 4096}).Error()
	if !strings.Contains(big, "too large on their own") {
		t.Fatalf("a 5000-token turn: %s", big)
	}
}

// TestCompactResumedWithPendingCalls: /compact on a resumed session whose
// last answer left calls without results (chat stopped before running
// them) folds the earlier turns, keeps the pending calls with their
// assistant message after the summary, and the next turn runs them first:
// every request stays valid.
func TestCompactResumedWithPendingCalls(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, false, bigTool{size: 100})
	converse(t, r, 3)
	pending := session.Assistant("", session.ToolCall{ID: "p1", Name: "read_file", Arguments: "{}"})
	r.agent.Session().Append(session.User("read it"), pending)
	o := r.agent.Compact(context.Background(), "").Run()
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	msgs := r.agent.Session().Messages()
	if err := session.Validate(msgs, true); err != nil {
		t.Fatalf("after /compact: %v", err)
	}
	if _, at := session.LatestSummary(msgs); at < 0 || msgs[len(msgs)-1].ID != pending.ID {
		t.Fatalf("the summary is at %d and the history ends with %+v", at, msgs[len(msgs)-1])
	}
	converse(t, r, 1)
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); !strings.Contains(got, "assistant(p1) tool:p1") {
		t.Fatalf("the pending call did not run first: %s", got)
	}
}

// TestCompactAtZeroIsOff: CompactAt 0 means never compact ahead of a
// request (as compact_at = 0 in the config); nil is the default share.
// It meant the default in the agent and "off" only in the config.
func TestCompactAtZeroIsOff(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{true, false} {
		srv := oaitest.New(t)
		srv.SetFallback(oaitest.Talker{AnswerBytes: 1500}.Reply)
		rec := &listener.Recorder{}
		o := agent.Options{Client: llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-model"}), Session: session.New(),
			System: "You are a test.", Listeners: listener.NewList(rec)}
		if off {
			zero := 0.0
			o.CompactAt = &zero
		}
		a := agent.New(o)
		a.SetContextWindow(smallWindow)
		for i := 1; i <= 12; i++ {
			if _, err := a.Run(context.Background(), fmt.Sprintf("question %d about topic %d", i, i)); err != nil {
				t.Fatal(err)
			}
		}
		compacted := false
		for _, e := range rec.Events() {
			if _, ok := e.(listener.Compacting); ok {
				compacted = true
			}
		}
		if compacted == off {
			t.Errorf("CompactAt off %v: compacted %v", off, compacted)
		}
	}
}

// TestSummaryTooBigLeavesTheTurnsOut (K3): when even the summary leaves
// no room for the current question (it would fill nine tenths of the
// window), the earlier turns are left out of what is sent, unsummarized,
// and the record and the event say so; the question is answered.
func TestSummaryTooBigLeavesTheTurnsOut(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, true)
	converse(t, r, 3)
	q := "question 4 with a long paste " + strings.Repeat("y", 12800)
	res, err := r.agent.Run(context.Background(), q)
	if err != nil || !strings.HasPrefix(res.Content, "Answer to question 4") {
		t.Fatalf("%v %q", err, clipped(res.Content))
	}
	c := compactions(r)
	if len(c) != 1 || !c[0].Dropped || c[0].Cut {
		t.Fatalf("compactions %+v", c)
	}
	var record session.Message
	for _, m := range r.agent.Session().Messages() {
		if m.Role == session.RoleSummary {
			record = m
		}
	}
	if !strings.Contains(record.Content, "were left out to fit the context window") || record.Compaction == nil || !record.Compaction.Dropped {
		t.Fatalf("the record: %+v", record)
	}
	if srv.Overflows() != 0 || len(srv.Rejected()) > 0 {
		t.Fatalf("%d overflows, rejected %v", srv.Overflows(), srv.Rejected())
	}
}

// TestTheCompactionNoticeComparesLikeWithLike: the notice sets the
// history folded against the summary that stands for it.
func TestTheCompactionNoticeComparesLikeWithLike(t *testing.T) {
	e := listener.Compacted{Messages: 8, Before: 1847, After: 1877, Folded: 1500, Summary: 12}
	got := listener.CompactedText(e)
	if !strings.Contains(got, "8 earlier messages (~1500 tokens) into a summary (~12)") || !strings.Contains(got, "next request ~1877") {
		t.Fatal(got)
	}
}

// TestATooLowServerCountStillCompactsInTime: a server that reports far
// fewer prompt tokens than it was sent (one that counts only what its
// prompt cache did not hold) does not keep chat from compacting before
// the window: no request is refused.
func TestATooLowServerCountStillCompactsInTime(t *testing.T) {
	t.Parallel()
	r, srv := talkRig(t, true, newEcho("list_files"))
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		reply := oaitest.Talker{AnswerBytes: 1500}.Reply(req)
		if a, ok := reply.(oaitest.Answer); ok {
			a.Usage = &oaitest.Usage{Prompt: 120, Completion: 40, Total: 160}
			return a
		}
		return reply
	})
	converse(t, r, 20)
	if n := srv.Overflows(); n != 0 {
		t.Fatalf("%d requests were over the window", n)
	}
	if len(compactions(r)) == 0 {
		t.Fatal("never compacted")
	}
}
