package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/internal/steps"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

const researcherPrompt = "You research one question and report the facts."

// delegateRig is a main agent with the agent tool; researchers use the
// sub-agent-only tool "secret_lookup" that the main agent is not offered.
func delegateRig(t *testing.T, reply func(req oaitest.Request, from string) oaitest.Reply) *rig {
	t.Helper()
	full := tool.NewSet(newEcho("echo"), newEcho("secret_lookup"))
	d := &agent.Delegate{Tools: full, Personas: map[string]agent.Definition{
		"researcher": {Identifier: "researcher", Instructions: researcherPrompt, MaxSteps: steps.Budget(4),
			Tools: []agent.ToolDescriptor{{Name: "secret_lookup"}, {Name: agent.DelegateName}}},
	}}
	full.Add(d)
	r := newRig(t, full.Without("secret_lookup").All())
	r.srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		from := "main"
		if strings.HasPrefix(req.Messages[0].Text(), researcherPrompt) {
			from = "researcher"
		}
		return reply(req, from)
	})
	return r
}

func lastIsTool(req oaitest.Request) bool { return req.Messages[len(req.Messages)-1].Role == "tool" }

// TestSubAgentAnswers: the model hands a task to a researcher; the
// researcher works with its own history (never the parent's question) and
// its own tools, and its answer is the tool result the parent reads.
func TestSubAgentAnswers(t *testing.T) {
	t.Parallel()
	r := delegateRig(t, func(req oaitest.Request, from string) oaitest.Reply {
		switch {
		case from == "main" && !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"researcher","task":"find the answer"}`}}}
		case from == "main":
			return oaitest.Answer{Text: "The researcher says: " + req.Messages[len(req.Messages)-1].Text()}
		case !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "secret_lookup", Args: `{"text":"x"}`}}}
		}
		return oaitest.Answer{Text: "it is 42"}
	})
	res, err := r.agent.Run(context.Background(), "what is the answer? ask the researcher")
	if err != nil || res.Content != "The researcher says: it is 42" {
		t.Fatal(err, res.Content)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests: %v", len(reqs), r.shapes())
	}
	sub := reqs[1]
	if sub.Shape() != "system user" || sub.Messages[1].Text() != "find the answer" {
		t.Fatalf("the sub-agent saw %s: %q", sub.Shape(), sub.Messages[1].Text())
	}
	if !slices.Contains(sub.ToolNames(), "secret_lookup") || slices.Contains(reqs[0].ToolNames(), "secret_lookup") {
		t.Fatalf("tools: main %v, sub %v", reqs[0].ToolNames(), sub.ToolNames())
	}
	if !strings.Contains(reqs[0].Tools[0].Function.Description+reqs[0].Tools[1].Function.Description, "researcher: You research") {
		t.Fatal("the agent tool does not advertise its personas")
	}
	var subEvents int
	for _, e := range r.rec.Events() {
		if e.Source().Agent == "researcher 0" {
			subEvents++
			if e.Source().Turn != 1 {
				t.Fatalf("a sub-agent event carries turn %d", e.Source().Turn)
			}
		}
	}
	if subEvents == 0 {
		t.Fatal("no event of researcher 0")
	}
	for _, m := range r.agent.Session().Messages() {
		if m.Content == "find the answer" {
			t.Fatal("the sub-agent's history leaked into the parent's")
		}
	}
}

// TestSubAgentsRunConcurrently: two agent calls in one answer are two
// sub-agents working at once ("researcher 0" and "researcher 1").
func TestSubAgentsRunConcurrently(t *testing.T) {
	t.Parallel()
	gates := map[string]*oaitest.Gate{"first": oaitest.NewGate(), "second": oaitest.NewGate()}
	r := delegateRig(t, func(req oaitest.Request, from string) oaitest.Reply {
		switch {
		case from == "main" && !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{
				{ID: "d1", Name: "agent", Args: `{"name":"researcher","task":"first"}`},
				{ID: "d2", Name: "agent", Args: `{"name":"researcher","task":"second"}`}}}
		case from == "main":
			return oaitest.Answer{Text: "both done"}
		}
		task := req.Messages[1].Text()
		return oaitest.Answer{Text: "did " + task, Gate: gates[task]}
	})
	done := runLater(r, "two things")
	for name, g := range gates {
		select {
		case <-g.Entered():
		case <-time.After(30 * time.Second):
			t.Fatalf("the %s sub-agent never asked while the other waited: they run one after the other", name)
		}
	}
	for _, g := range gates {
		g.Release()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reqs := r.srv.Requests()
	if got := reqs[len(reqs)-1].Shape(); got != "system user assistant(d1,d2) tool:d1 tool:d2" {
		t.Fatal(got)
	}
	ids := map[string]bool{}
	for _, e := range r.rec.Events() {
		ids[e.Source().Agent] = true
	}
	if !ids["researcher 0"] || !ids["researcher 1"] {
		t.Fatalf("agent ids %v", ids)
	}
}

// TestCancelStopsTheTree: Ctrl+C while a sub-agent streams closes the
// sub-agent's HTTP stream, ends the parent's turn at once and leaves a
// history the strict server accepts.
func TestCancelStopsTheTree(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	var mu sync.Mutex
	stalled := true
	r := delegateRig(t, func(req oaitest.Request, from string) oaitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case from == "main" && !lastIsTool(req) && stalled:
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"researcher","task":"slow"}`}}}
		case from == "main":
			return oaitest.Answer{Text: "fine"}
		}
		return oaitest.Answer{Text: "the start of a long report", Piece: 8, Gate: gate, GateAfter: 1}
	})
	done := runLater(r, "ask the slow one")
	waitEntered(t, gate, "the sub-agent never streamed")
	r.agent.Cancel("cancelled at the keyboard")
	select {
	case <-r.srv.Hangups():
	case <-time.After(30 * time.Second):
		t.Fatal("the sub-agent's stream stayed open")
	}
	wantCancelled(t, done, "the parent's turn did not end")
	if err := session.Validate(r.agent.Session().Messages(), false); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	stalled = false
	mu.Unlock()
	if res, err := r.agent.Run(context.Background(), "next"); err != nil || res.Content != "fine" {
		t.Fatal(err, res.Content)
	}
}

// TestDelegationDepthIsBounded: a sub-agent at the bound is not offered
// the agent tool, and a call of it is refused.
func TestDelegationDepthIsBounded(t *testing.T) {
	t.Parallel()
	var offered [][]string
	var mu sync.Mutex
	r := delegateRig(t, func(req oaitest.Request, from string) oaitest.Reply {
		mu.Lock()
		offered = append(offered, req.ToolNames())
		mu.Unlock()
		if lastIsTool(req) {
			return oaitest.Answer{Text: "depth reached: " + req.Messages[len(req.Messages)-1].Text()}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("d%d", req.Index), Name: "agent", Args: `{"name":"researcher","task":"go deeper"}`}}}
	})
	res, err := r.agent.Run(context.Background(), "recurse")
	if err != nil || !strings.Contains(res.Content, "depth reached") {
		t.Fatal(err, res.Content)
	}
	// main (offered agent), researcher 0 (offered), researcher 1 at depth 2 (not offered).
	if len(offered) < 3 || !slices.Contains(offered[0], "agent") || !slices.Contains(offered[1], "agent") || slices.Contains(offered[2], "agent") {
		t.Fatalf("offered: %v", offered)
	}
	var ids []string
	for _, e := range r.rec.Events() {
		if e.Source().Agent != "" && !slices.Contains(ids, e.Source().Agent) {
			ids = append(ids, e.Source().Agent)
		}
	}
	if strings.Join(ids, ",") != "researcher 0,researcher 1" {
		t.Fatalf("ids %v", ids)
	}
}

// TestPersonaDescription: a persona's description is how the main agent
// sees it (not its instructions pasted in), and it survives the JSON form.
func TestPersonaDescription(t *testing.T) {
	def := agent.Definition{Identifier: "reviewer", Description: "reviews Go code for bugs", Instructions: "You are a meticulous reviewer.\nAlways cite lines."}
	d := &agent.Delegate{Personas: map[string]agent.Definition{"reviewer": def}}
	if text := d.Advert().Text; !strings.Contains(text, "- reviewer: reviews Go code for bugs") || strings.Contains(text, "meticulous") {
		t.Fatalf("advert: %s", text)
	}
	b, _ := json.Marshal(def)
	var back agent.Definition
	if err := json.Unmarshal(b, &back); err != nil || back.Description != def.Description {
		t.Fatalf("%v %+v", err, back)
	}
}

// TestSubAgentEventsCarryTheCallersTurn: a sub-agent's events are its
// caller's turn's, in every turn, not the sub-agent's own count (which
// would say 1 in the caller's second turn): a host drops a cancelled
// turn's late events by that number.
func TestSubAgentEventsCarryTheCallersTurn(t *testing.T) {
	t.Parallel()
	r := delegateRig(t, func(req oaitest.Request, from string) oaitest.Reply {
		switch {
		case from == "main" && !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"researcher","task":"look"}`}}}
		case from == "main":
			return oaitest.Answer{Text: "done"}
		}
		return oaitest.Answer{Text: "found"}
	})
	for turn := uint64(1); turn <= 2; turn++ {
		seen := len(r.rec.Events())
		if _, err := r.agent.Run(context.Background(), fmt.Sprintf("question %d", turn)); err != nil {
			t.Fatal(err)
		}
		var sub int
		for _, e := range r.rec.Events()[seen:] {
			if strings.HasPrefix(e.Source().Agent, "researcher") {
				sub++
				if e.Source().Turn != turn {
					t.Fatalf("in turn %d a sub-agent event (%s) carries turn %d", turn, e.Kind(), e.Source().Turn)
				}
			}
		}
		if sub == 0 {
			t.Fatalf("turn %d: no sub-agent event", turn)
		}
	}
}

// grower adds a tool to the set it was called from, as mcp_connect adds a
// server's tools to the calling agent's.
type grower struct{ *echoTool }

func (g grower) Run(ctx context.Context, args json.RawMessage) (string, error) {
	tool.SetOf(ctx).Add(newEcho("grown"))
	return "connected", nil
}

// TestASubAgentsConnectionsStayItsOwn: a sub-agent of a persona with no
// tool list of its own starts with its caller's tools, and what it
// connects is its own: the caller's set does not grow.
func TestASubAgentsConnectionsStayItsOwn(t *testing.T) {
	t.Parallel()
	full := tool.NewSet(grower{newEcho("connect")})
	full.Add(&agent.Delegate{Tools: full, Personas: map[string]agent.Definition{
		"helper": {Identifier: "helper", Instructions: "You help.", MaxSteps: steps.Budget(4)}}})
	r := newRig(t, full.All())
	r.srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		sub := strings.HasPrefix(req.Messages[0].Text(), "You help.")
		switch {
		case sub && !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "connect", Args: `{}`}}}
		case sub:
			return oaitest.Answer{Text: "connected it"}
		case !lastIsTool(req):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"helper","task":"connect"}`}}}
		}
		return oaitest.Answer{Text: "done"}
	})
	if _, err := r.agent.Run(context.Background(), "get the helper to connect"); err != nil {
		t.Fatal(err)
	}
	if _, grown := r.agent.Tools().Lookup("grown"); grown {
		t.Fatal("the sub-agent's connection grew its caller's tools")
	}
}
