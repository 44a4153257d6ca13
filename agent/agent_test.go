package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strconv"
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

// echoTool answers with its arguments; gated, it waits to be released or
// cancelled and records how it ended.
type echoTool struct {
	tool.Unreviewed
	name    string
	entered chan struct{}
	release chan struct{}
	ctxErr  chan error
}

func newEcho(name string) *echoTool { return &echoTool{name: name} }

func newGatedEcho(name string) *echoTool {
	return &echoTool{name: name, entered: make(chan struct{}), release: make(chan struct{}), ctxErr: make(chan error, 1)}
}

func (e *echoTool) Name() string        { return e.name }
func (e *echoTool) Description() string { return "echoes its input" }
func (e *echoTool) Parameters() json.RawMessage {
	return tool.Object(nil, map[string]*tool.Schema{"text": tool.Prop("string", "")})
}
func (e *echoTool) Timeout() time.Duration { return 0 }
func (e *echoTool) Run(ctx context.Context, args json.RawMessage) (string, error) {
	if e.entered != nil {
		close(e.entered)
		select {
		case <-e.release:
		case <-ctx.Done():
			e.ctxErr <- ctx.Err()
			return "", ctx.Err()
		}
	}
	return "echo " + string(args), nil
}

type rig struct {
	srv      *oaitest.Server
	agent    *agent.Agent
	rec      *listener.Recorder
	in       *control.Interloper
	steps    *control.StepLimit
	hookSeen []session.Role
	mu       sync.Mutex
}

func newRig(t *testing.T, tools []tool.Tool, script ...oaitest.Reply) *rig {
	t.Helper()
	return newRigWith(t, nil, tools, script...)
}

// newRigWith is newRig with the agent's options changed by with first.
func newRigWith(t *testing.T, with func(*agent.Options), tools []tool.Tool, script ...oaitest.Reply) *rig {
	t.Helper()
	r := &rig{srv: oaitest.New(t, script...), rec: &listener.Recorder{}, in: control.NewInterloper(), steps: control.NewStepLimit(16)}
	client := llm.New(llm.Config{BaseURL: r.srv.BaseURL(), APIKey: "k", Model: "scripted-model", BaseBackoff: time.Millisecond})
	sess := session.New().OnMessage(func(m session.Message) {
		r.mu.Lock()
		r.hookSeen = append(r.hookSeen, m.Role)
		r.mu.Unlock()
	})
	o := agent.Options{
		Client: client, System: "You are a test.", Session: sess, Tools: tool.NewSet(tools...),
		Listeners: listener.NewList(r.rec), StepLimit: r.steps, Interloper: r.in,
	}
	if with != nil {
		with(&o)
	}
	r.agent = agent.New(o)
	t.Cleanup(func() {
		if rej := r.srv.Rejected(); len(rej) > 0 {
			t.Errorf("the strict server refused a request: %v", rej)
		}
	})
	return r
}

// kinds lists the recorded events, runs of one delta kind shown once as kind+.
func (r *rig) kinds() string {
	var out []string
	for _, e := range r.rec.Events() {
		k := e.Kind()
		if e.Source().Agent != "" {
			k = e.Source().Agent + ":" + k
		}
		if strings.HasSuffix(k, "_delta") {
			k += "+"
			if len(out) > 0 && out[len(out)-1] == k {
				continue
			}
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func (r *rig) shapes() []string {
	var out []string
	for _, q := range r.srv.Requests() {
		out = append(out, q.Shape())
	}
	return out
}

func wantShapes(t *testing.T, r *rig, want ...string) {
	t.Helper()
	got := r.shapes()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func wantKinds(t *testing.T, r *rig, want string) {
	t.Helper()
	if got := r.kinds(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestPlainAnswer(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, oaitest.Answer{Text: "Hello there, friend."})
	res, err := r.agent.Run(context.Background(), "hi")
	if err != nil || res.Content != "Hello there, friend." || res.Usage.Total == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	wantKinds(t, r, "user_turn assistant_delta+ assistant usage turn_done")
	wantShapes(t, r, "system user")
	var text string
	for _, e := range r.rec.Events() {
		if d, ok := e.(listener.AssistantDelta); ok {
			text += d.Text
			if d.Turn != 1 {
				t.Fatalf("turn id %d", d.Turn)
			}
		}
	}
	if text != res.Content {
		t.Fatalf("deltas %q", text)
	}
}

func TestToolRoundTrip(t *testing.T) {
	t.Parallel()
	r := newRig(t, []tool.Tool{newEcho("echo")},
		oaitest.Answer{Reasoning: "I should echo.", Calls: []oaitest.Call{{ID: "call_1", Name: "echo", Args: `{"text":"hi"}`}}},
		oaitest.Answer{Text: "It said hi."})
	res, err := r.agent.Run(context.Background(), "echo hi")
	if err != nil || res.Content != "It said hi." {
		t.Fatalf("%+v %v", res, err)
	}
	wantKinds(t, r, "user_turn thinking_delta+ thinking assistant usage tool_call tool_result assistant_delta+ assistant usage turn_done")
	wantShapes(t, r, "system user", "system user assistant(call_1) tool:call_1")
	msgs := r.agent.Session().Messages()
	if got := msgs[3].Content; got != `echo {"text":"hi"}` {
		t.Fatalf("tool message %q", got)
	}
	if msgs[2].Reasoning != "I should echo." {
		t.Fatal("reasoning not kept")
	}
	if strings.Join(r.srv.Requests()[0].ToolNames(), ",") != "echo" {
		t.Fatal("tools not offered")
	}
	if len(r.hookSeen) != 3 { // assistant, tool, assistant; never system or user
		t.Fatalf("OnMessage saw %v", r.hookSeen)
	}
}

func TestParallelAndInterleavedCalls(t *testing.T) {
	t.Parallel()
	for _, interleave := range []bool{false, true} {
		r := newRig(t, []tool.Tool{newEcho("a"), newEcho("b")},
			oaitest.Answer{Interleave: interleave, Piece: 2, Calls: []oaitest.Call{
				{ID: "call_a", Name: "a", Args: `{"text":"first"}`},
				{ID: "call_b", Name: "b", Args: `{"text":"second"}`}}},
			oaitest.Answer{Text: "both done"})
		if _, err := r.agent.Run(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		wantKinds(t, r, "user_turn assistant usage tool_call tool_result tool_call tool_result assistant_delta+ assistant usage turn_done")
		wantShapes(t, r, "system user", "system user assistant(call_a,call_b) tool:call_a tool:call_b")
		msgs := r.agent.Session().Messages()
		if msgs[3].Content != `echo {"text":"first"}` || msgs[4].Content != `echo {"text":"second"}` {
			t.Fatalf("results %q %q", msgs[3].Content, msgs[4].Content)
		}
	}
}

func TestInvalidToolArguments(t *testing.T) {
	t.Parallel()
	r := newRig(t, []tool.Tool{newEcho("echo")},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "echo", Args: `{"text": "unterminated`}}},
		oaitest.Answer{Text: "sorry"})
	res, err := r.agent.Run(context.Background(), "go")
	if err != nil || res.Content != "sorry" {
		t.Fatal(res, err)
	}
	tm := r.agent.Session().Messages()[3]
	if tm.ErrorType != tool.ErrTypeInvalidArguments || !strings.Contains(tm.Content, "not valid JSON") {
		t.Fatalf("tool message %+v", tm)
	}
}

func TestStepExhaustionSynthesizes(t *testing.T) {
	t.Parallel()
	loop := func(id string) oaitest.Answer {
		return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "echo", Args: `{"text":"again"}`}}}
	}
	r := newRig(t, []tool.Tool{newEcho("echo")},
		loop("c1"), loop("c2"), oaitest.Answer{Calls: []oaitest.Call{
			{ID: "c3", Name: "echo", Args: `{}`}, {ID: "c4", Name: "echo", Args: `{}`}}},
		oaitest.Answer{Text: "Best answer from the evidence."})
	r.steps.SetMax(2)
	res, err := r.agent.Run(context.Background(), "loop forever")
	if err != nil || !res.Synthesized || res.Content != "Best answer from the evidence." {
		t.Fatalf("%+v %v", res, err)
	}
	if strings.Join(res.HealedToolCallIDs, ",") != "c3,c4" {
		t.Fatalf("healed %v", res.HealedToolCallIDs)
	}
	wantKinds(t, r, "user_turn assistant usage tool_call tool_result assistant usage tool_call tool_result assistant usage tool_call "+
		"fallback_notice synthesizer:assistant_delta+ synthesizer:assistant synthesizer:usage turn_done")
	reqs := r.srv.Requests()
	synth := reqs[3]
	if len(synth.Tools) != 0 || synth.Shape() != "system user" {
		t.Fatalf("synthesizer request: tools %v shape %s", synth.ToolNames(), synth.Shape())
	}
	prompt := synth.Messages[1].Text()
	for _, want := range []string{"loop forever", "[tool call echo]", `echo {"text":"again"}`, "Tool call interrupted before completion."} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("synthesizer prompt lacks %q:\n%s", want, prompt)
		}
	}
	msgs := r.agent.Session().Messages()
	if last := msgs[len(msgs)-1]; !last.Synthesized || last.Content != res.Content {
		t.Fatalf("last message %+v", last)
	}
	if err := session.Validate(msgs, false); err != nil {
		t.Fatal(err)
	}
	// The next turn has a fresh budget and a valid history.
	r.srv.Push(oaitest.Answer{Text: "ok"})
	if _, err := r.agent.Run(context.Background(), "thanks"); err != nil {
		t.Fatal(err)
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	r := newRig(t, nil, oaitest.Answer{Text: "The answer is long and", Piece: 8, Gate: gate, GateAfter: 2})
	// Cancel once the person has seen the first two pieces, as they would.
	var shown string
	r.agent.Listeners().Add(listener.Func(func(e listener.Event) {
		if d, ok := e.(listener.AssistantDelta); ok {
			if shown += d.Text; shown == "The answer is lo" {
				r.agent.Cancel("user pressed Ctrl+C")
			}
		}
	}))
	res, err := cancelledWithin(t, r.agent, context.Background(), "tell me")
	if !errors.Is(err, control.ErrCancelled) || !res.Interrupted || res.InterruptReason != "user pressed Ctrl+C" {
		t.Fatalf("%+v %v", res, err)
	}
	select {
	case <-r.srv.Hangups():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	wantKinds(t, r, "user_turn assistant_delta+ assistant cancelled turn_done")
	msgs := r.agent.Session().Messages()
	if last := msgs[len(msgs)-1]; !last.Interrupted || last.Content != "The answer is lo" {
		t.Fatalf("partial answer %+v", last)
	}
	r.srv.Push(oaitest.Answer{Text: "fresh"})
	res, err = r.agent.Run(context.Background(), "again")
	if err != nil || res.Content != "fresh" {
		t.Fatal(res, err)
	}
	wantShapes(t, r, "system user", "system user assistant user")
}

func TestCancelDuringSlowTool(t *testing.T) {
	t.Parallel()
	slow := newGatedEcho("slow")
	r := newRig(t, []tool.Tool{slow},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "slow", Args: `{}`}, {ID: "c2", Name: "slow", Args: `{}`}}})
	go func() {
		<-slow.entered
		r.agent.Cancel("stop")
	}()
	res, err := cancelledWithin(t, r.agent, context.Background(), "run it")
	if !errors.Is(err, control.ErrCancelled) {
		t.Fatal(err)
	}
	if got := <-slow.ctxErr; !errors.Is(got, context.Canceled) {
		t.Fatalf("tool context: %v", got)
	}
	if strings.Join(res.HealedToolCallIDs, ",") != "c1,c2" {
		t.Fatalf("healed %v", res.HealedToolCallIDs)
	}
	msgs := r.agent.Session().Messages()
	if err := session.Validate(msgs, false); err != nil {
		t.Fatal(err)
	}
	if msgs[3].ErrorType != session.ErrorTypeInterrupted || msgs[3].Content != session.InterruptedPlaceholder {
		t.Fatalf("placeholder %+v", msgs[3])
	}
	wantKinds(t, r, "user_turn assistant usage tool_call cancelled turn_done")
	if len(r.hookSeen) != 1 {
		t.Fatalf("placeholders fired OnMessage: %v", r.hookSeen)
	}
	r.srv.Push(oaitest.Answer{Text: "ok"})
	if _, err := r.agent.Run(context.Background(), "next"); err != nil {
		t.Fatal(err)
	}
	wantShapes(t, r, "system user", "system user assistant(c1,c2) tool:c1 tool:c2 user")
}

func TestInterloperDuringTool(t *testing.T) {
	t.Parallel()
	slow := newGatedEcho("slow")
	r := newRig(t, []tool.Tool{slow},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "slow", Args: `{}`}}},
		oaitest.Answer{Text: "noted"})
	go func() {
		<-slow.entered
		r.in.Push("also check the tests")
		close(slow.release)
	}()
	if _, err := r.agent.Run(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	wantShapes(t, r, "system user", "system user assistant(c1) tool:c1 user")
	if got := r.srv.Requests()[1].Messages[4].Text(); got != "also check the tests" {
		t.Fatalf("injected %q", got)
	}
	wantKinds(t, r, "user_turn assistant usage tool_call tool_result user_turn assistant_delta+ assistant usage turn_done")
	for _, e := range r.rec.Events() {
		if u, ok := e.(listener.UserTurn); ok && u.Content == "also check the tests" && !u.MidLoop {
			t.Fatal("mid-loop input not marked MidLoop")
		}
	}
}

func TestInterloperDuringFinalAnswer(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	r := newRig(t, nil,
		oaitest.Answer{Text: "Here is my answer.", Gate: gate, GateAfter: 1},
		oaitest.Answer{Text: "And about your follow-up."})
	go func() {
		<-gate.Entered()
		r.in.Push("one more thing")
		gate.Release()
	}()
	res, err := r.agent.Run(context.Background(), "q")
	if err != nil || res.Content != "And about your follow-up." {
		t.Fatal(res, err)
	}
	wantShapes(t, r, "system user", "system user assistant user")
	wantKinds(t, r, "user_turn assistant_delta+ assistant usage user_turn assistant_delta+ assistant usage turn_done")
}

func TestErrorsLeaveTheSessionUsable(t *testing.T) {
	t.Parallel()
	fail500 := oaitest.Fail{Status: 500, Message: "boom"}
	tests := []struct {
		name   string
		script []oaitest.Reply
		kinds  string
		msg    string
		errIs  error
	}{
		{"429 then success", []oaitest.Reply{oaitest.Fail{Status: 429, Message: "slow down", Header: map[string]string{"Retry-After": "0.01"}}, oaitest.Answer{Text: "ok"}},
			"user_turn retry assistant_delta+ assistant usage turn_done", "", nil},
		{"500 every time", []oaitest.Reply{fail500, fail500, fail500, fail500},
			"user_turn retry retry retry error turn_done", "500 from", nil},
		{"malformed SSE", []oaitest.Reply{oaitest.Raw{Body: "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\ndata: {oops\n\n"}},
			"user_turn assistant_delta+ assistant error turn_done", "malformed", llm.ErrMalformed},
		{"cut before DONE", []oaitest.Reply{oaitest.Answer{Text: "partial text", CutAfter: 2}},
			"user_turn assistant_delta+ assistant error turn_done", "ended before", llm.ErrStreamCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, tt.script...)
			_, err := r.agent.Run(context.Background(), "q")
			if (tt.msg == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.msg)) || (tt.errIs != nil && !errors.Is(err, tt.errIs)) {
				t.Fatalf("err %v", err)
			}
			wantKinds(t, r, tt.kinds)
			r.srv.Push(oaitest.Answer{Text: "recovered"})
			if res, err := r.agent.Run(context.Background(), "again"); err != nil || res.Content != "recovered" {
				t.Fatal(res, err)
			}
		})
	}
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.srv.SetAPIKey("other")
	_, err := r.agent.Run(context.Background(), "q")
	if err == nil || !strings.Contains(err.Error(), "401 from") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatal(err)
	}
	wantKinds(t, r, "user_turn error turn_done")
}

func TestResumeRunsPendingCalls(t *testing.T) {
	t.Parallel()
	r := newRig(t, []tool.Tool{newEcho("echo")}, oaitest.Answer{Text: "resumed"})
	call := session.ToolCall{ID: "p1", Name: "echo", Arguments: `{"text":"x"}`}
	seeded := session.PruneOrphans([]session.Message{session.System("s"), session.User("do it"), session.Assistant("", call)})
	sess := r.agent.Session()
	for _, m := range seeded[1:] {
		sess.AppendInput(m)
	}
	res, err := r.agent.Resume(context.Background())
	if err != nil || res.Content != "resumed" {
		t.Fatal(res, err)
	}
	wantShapes(t, r, "system user assistant(p1) tool:p1")
	if _, err := r.agent.Resume(context.Background()); !errors.Is(err, agent.ErrNothingToResume) {
		t.Fatalf("second Resume: %v", err)
	}
}

func TestCancelledContextCancelsTheTurn(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	r := newRig(t, nil, oaitest.Answer{Text: "never finishes", Gate: gate})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-gate.Entered()
		cancel()
	}()
	if _, err := cancelledWithin(t, r.agent, ctx, "q"); !errors.Is(err, control.ErrCancelled) {
		t.Fatal(err)
	}
}

// cancelledWithin runs a turn the test cancels. When cancellation is
// broken the test fails in 30 s instead of hanging until the binary's
// timeout.
func cancelledWithin(t *testing.T, a *agent.Agent, ctx context.Context, text string) (agent.Result, error) {
	t.Helper()
	_, done := a.Start(ctx, text)
	select {
	case o := <-done:
		return o.Result, o.Err
	case <-time.After(30 * time.Second):
		t.Fatal("the turn was not cancelled within 30 s: cancellation is broken")
	}
	return agent.Result{}, nil
}

func TestRunAfterLoadRunsPendingCallsFirst(t *testing.T) {
	t.Parallel()
	r := newRig(t, []tool.Tool{newEcho("echo")}, oaitest.Answer{Text: "answered"})
	call := session.ToolCall{ID: "p1", Name: "echo", Arguments: `{"text":"x"}`}
	for _, m := range session.PruneOrphans([]session.Message{session.User("do it"), session.Assistant("", call)}) {
		r.agent.Session().AppendInput(m)
	}
	if _, err := r.agent.Run(context.Background(), "and then?"); err != nil {
		t.Fatal(err)
	}
	wantShapes(t, r, "system user assistant(p1) tool:p1 user")
}

// TestHugeToolOutputStaysBounded runs a command that prints a lot (100 MB;
// CHAT_EXTREME_MB=1000 for a gigabyte) through the real run_shell tool,
// with a slow screen behind RateLimited: memory stays bounded and the
// model gets a truncated result.
func TestHugeToolOutputStaysBounded(t *testing.T) {
	mb := 100
	if v, err := strconv.Atoi(os.Getenv("CHAT_EXTREME_MB")); err == nil && v > 0 {
		mb = v
	}
	ws := tool.Workspace{Root: t.TempDir(), MaxOutput: 32 << 10}
	shell := tool.RunShell{Workspace: ws}
	r := newRig(t, nil,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "big", Name: "run_shell", Args: `{"command":"head -c ` + strconv.Itoa(mb) + `000000 /dev/zero | tr '\\0' x | fold -w 100"}`}}},
		oaitest.Answer{Text: "that was a lot"})
	set := tool.Rules{Policy: &tool.Policy{AllowAll: true}}.Set(shell)
	slow := listener.Func(func(listener.Event) { time.Sleep(2 * time.Millisecond) })
	var peak uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}()
	a := agent.New(agent.Options{Client: llm.New(llm.Config{BaseURL: r.srv.BaseURL(), Model: "m"}), Tools: set,
		Listeners: listener.NewList(listener.NewRateLimited(slow, 60))})
	res, err := a.Run(context.Background(), "print a lot")
	close(stop)
	<-sampled
	if err != nil || res.Content != "that was a lot" {
		t.Fatal(res, err)
	}
	result := a.Session().Messages()[2].Content
	if len(result) > 40<<10 || !strings.Contains(result, "bytes of output cut") {
		t.Fatalf("tool result of %d bytes", len(result))
	}
	if peak > 200<<20 {
		t.Fatalf("heap peaked at %d MB", peak>>20)
	}
	t.Logf("%d MB of output: heap peak %d MB, result %d bytes", mb, peak>>20, len(result))
}

// TestStartNumbersTheTurnFirst: Start hands out the turn id before any
// event, and every event of the turn carries it; a tool call sees it in
// its context (approvals use it).
func TestStartNumbersTheTurnFirst(t *testing.T) {
	t.Parallel()
	var seen listener.Origin
	probe := &probeTool{see: func(ctx context.Context) { seen, _ = listener.OriginOf(ctx) }}
	r := newRig(t, []tool.Tool{probe},
		oaitest.Answer{Text: "one"},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "c1", Name: "probe", Args: `{}`}}}, oaitest.Answer{Text: "two"})
	for want := uint64(1); want <= 2; want++ {
		id, done := r.agent.Start(context.Background(), "q")
		if id != want {
			t.Fatalf("turn id %d, want %d", id, want)
		}
		select {
		case o := <-done:
			if o.Err != nil || o.Turn != id {
				t.Fatal(o)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the turn never ended")
		}
	}
	for _, e := range r.rec.Events() {
		if e.Source().Turn == 0 || e.Source().Turn > 2 {
			t.Fatalf("%s carries turn %d", e.Kind(), e.Source().Turn)
		}
	}
	if seen.Turn != 2 {
		t.Fatalf("the tool saw origin %+v", seen)
	}
}

// TestCallerContextCancelsTheTurn: the turn's context derives from the
// caller's: cancelling it with a cause ends the turn with that reason.
func TestCallerContextCancelsTheTurn(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	r := newRig(t, nil, oaitest.Answer{Text: "a long answer that hangs", Piece: 4, Gate: gate, GateAfter: 1})
	ctx, cancel := context.WithCancelCause(context.Background())
	_, done := r.agent.Start(ctx, "q")
	select {
	case <-gate.Entered():
	case <-time.After(10 * time.Second):
		t.Fatal("the stream never started")
	}
	cancel(errors.New("the window closed"))
	select {
	case o := <-done:
		var ce *control.CancelledError
		if !errors.As(o.Err, &ce) || ce.Reason != "the window closed" || o.Result.InterruptReason != "the window closed" {
			t.Fatalf("%v %+v", o.Err, o.Result)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the caller's context did not end the turn")
	}
	select {
	case <-r.srv.Hangups():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
}

type probeTool struct {
	tool.Unreviewed
	see func(context.Context)
}

func (*probeTool) Name() string                { return "probe" }
func (*probeTool) Description() string         { return "looks at its context" }
func (*probeTool) Parameters() json.RawMessage { return tool.Object(nil, nil) }
func (*probeTool) Timeout() time.Duration      { return 0 }
func (p *probeTool) Run(ctx context.Context, _ json.RawMessage) (string, error) {
	p.see(ctx)
	return "seen", nil
}

// TestCancelBeforeTheTurnRuns: a Cancel that comes after a turn was
// numbered but before it ran (the host pressed Ctrl+C at once) is not
// lost; the next turn is not affected.
func TestCancelBeforeTheTurnRuns(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, oaitest.Answer{Text: "fine"})
	turn := r.agent.NewTurn(context.Background(), "q")
	r.agent.Cancel("pressed at once")
	if o := turn.Run(); !errors.Is(o.Err, control.ErrCancelled) || o.Result.InterruptReason != "pressed at once" {
		t.Fatalf("%+v", o)
	}
	if o := r.agent.NewTurn(context.Background(), "again").Run(); o.Err != nil || o.Result.Content != "fine" {
		t.Fatalf("the next turn: %+v", o)
	}
}
