package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// countingEcho is an echo that counts its runs.
type countingEcho struct {
	*echoTool
	runs *atomic.Int32
}

func (c countingEcho) Run(ctx context.Context, args json.RawMessage) (string, error) {
	c.runs.Add(1)
	return c.echoTool.Run(ctx, args)
}

// TestAStartedCallIsNotRunAgain (A8): a call the session marks started
// (chat stopped while it ran) is answered with what happened, never run
// again; a call of the same answer that had not started runs.
func TestAStartedCallIsNotRunAgain(t *testing.T) {
	t.Parallel()
	runs := &atomic.Int32{}
	r := newRig(t, []tool.Tool{countingEcho{newEcho("echo"), runs}}, oaitest.Answer{Text: "answered"})
	started := session.ToolCall{ID: "p1", Name: "echo", Arguments: `{"text":"once"}`, Started: true}
	fresh := session.ToolCall{ID: "p2", Name: "echo", Arguments: `{"text":"not yet"}`}
	for _, m := range session.PruneOrphans([]session.Message{session.User("do it"), session.Assistant("", started, fresh)}) {
		r.agent.Session().AppendInput(m)
	}
	if _, err := r.agent.Run(context.Background(), "and then?"); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the tool ran %d times, want 1 (the call that had not started)", n)
	}
	msgs := r.agent.Session().Messages()
	var p1 session.Message
	for _, m := range msgs {
		if m.Role == session.RoleTool && m.ToolCallID == "p1" {
			p1 = m
		}
	}
	if !strings.Contains(p1.Content, "had started when chat stopped") {
		t.Fatalf("the started call's result: %q", p1.Content)
	}
}

// loopCall is an answer that calls echo again, reporting tokens used.
func loopCall(id string, tokens int) oaitest.Answer {
	return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "echo", Args: `{"text":"more"}`}},
		Usage: &oaitest.Usage{Prompt: tokens - 5, Completion: 5, Total: tokens}}
}

// TestASpentBudgetSynthesizes (A9): when the turn's token budget is spent
// the loop stops at the next call and the answer is synthesized from what
// was gathered, saying which budget ran out.
func TestASpentBudgetSynthesizes(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, func(o *agent.Options) { o.Spend = control.NewSpend(100, 0) }, []tool.Tool{newEcho("echo")},
		loopCall("c1", 60), loopCall("c2", 60), oaitest.Answer{Text: "What the evidence says."})
	res, err := r.agent.Run(context.Background(), "keep going")
	if err != nil || !res.Synthesized || res.Content != "What the evidence says." {
		t.Fatalf("%+v %v", res, err)
	}
	if reason := fallbackReason(r); !strings.Contains(reason, "budget of 100 tokens") {
		t.Fatalf("fallback reason %q", reason)
	}
	if n := len(r.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (two steps, then the synthesizer)", n)
	}
}

// TestASubAgentSpendsItsCallersBudget (A10): a sub-agent's turn counts
// against the turn that called it and never starts that budget afresh.
func TestASubAgentSpendsItsCallersBudget(t *testing.T) {
	t.Parallel()
	full := tool.NewSet(newEcho("echo"))
	full.Add(&agent.Delegate{Tools: full, Personas: map[string]agent.Definition{
		"helper": {Identifier: "helper", Instructions: "You help.", MaxSteps: steps.Budget(4)}}})
	r := newRigWith(t, func(o *agent.Options) { o.Spend = control.NewSpend(300, 0) }, full.All())
	main := 0
	r.srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if strings.HasPrefix(req.Messages[0].Text(), "You help.") {
			return oaitest.Answer{Text: "helped", Usage: &oaitest.Usage{Prompt: 5, Completion: 5, Total: 10}}
		}
		main++
		switch main {
		case 1:
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"helper","task":"help"}`}},
				Usage: &oaitest.Usage{Prompt: 245, Completion: 5, Total: 250}}
		case 2:
			return loopCall("c2", 100)
		}
		if len(req.Tools) == 0 {
			return oaitest.Answer{Text: "synthesized within budget"}
		}
		return loopCall("c3", 10)
	})
	res, err := r.agent.Run(context.Background(), "get help")
	if err != nil || !res.Synthesized || res.Content != "synthesized within budget" {
		t.Fatalf("%+v %v", res, err)
	}
	if reason := fallbackReason(r); !strings.Contains(reason, "budget of 300 tokens (360 so far)") {
		t.Fatalf("the budget was not kept across the sub-agent: %q", reason)
	}
}

// fallbackReason is why the recorded turn's answer was synthesized.
func fallbackReason(r *rig) string {
	for _, e := range r.rec.Events() {
		if n, ok := e.(listener.FallbackNotice); ok && n.Agent == "" {
			return n.Reason
		}
	}
	return ""
}
