package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

const personaConfig = `
[agents.researcher]
instructions = "You research one question and report the facts."
max_steps = 4
tools = ["read_file", "fetch_url"]

[tools]
sub_agents_only = ["fetch_url"]
`

// researchServer plays a main model that delegates to the researcher and
// a researcher that reads a file, then reports.
func researchServer(t *testing.T) *oaitest.Server {
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		researcher := strings.HasPrefix(req.Messages[0].Text(), "You research")
		last := req.Messages[len(req.Messages)-1]
		switch {
		case !researcher && last.Role != "tool":
			return oaitest.Answer{Text: "Asking the researcher.", Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"researcher","task":"what does notes.txt say?"}`}}}
		case !researcher:
			return oaitest.Answer{Text: "The researcher found: " + last.Text()}
		case last.Role != "tool":
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "r1", Name: "read_file", Args: `{"path":"notes.txt"}`}}}
		}
		return oaitest.Answer{Text: "notes.txt says the build is green"}
	})
	return srv
}

// TestSubAgentInPrintMode: a persona in the config is a sub-agent the
// model delegates to; stdout holds only the main answer, stderr shows the
// sub-agent's work, --json tags every event with its agent, and the
// sub-agent-only tool is offered to the researcher alone.
func TestSubAgentInPrintMode(t *testing.T) {
	t.Parallel()
	srv := researchServer(t)
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, personaConfig)
	_ = os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the build is green\n"), 0o600)
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "check the notes"), home, dir))
	if code != 0 || !strings.Contains(out, "The researcher found: notes.txt says the build is green") || strings.Contains(out, "⤷") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"→ agent", "⤷ researcher 0: what does notes.txt say?", "→ read_file", "⤶ researcher 0 answered: notes.txt says"} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	reqs := srv.Requests()
	main, sub := reqs[0], reqs[1]
	if !strings.Contains(main.Messages[0].Text(), "<available_agents>") || !slices.Contains(main.ToolNames(), "agent") || slices.Contains(main.ToolNames(), "fetch_url") {
		t.Fatalf("main request: tools %v, system %q", main.ToolNames(), main.Messages[0].Text())
	}
	if got := strings.Join(sub.ToolNames(), ","); got != "read_file,fetch_url" || sub.Shape() != "system user" {
		t.Fatalf("sub-agent request: tools %s, shape %s", got, sub.Shape())
	}

	_, verbose, _ := run(t, inHome(t, command(t, srv, "-v", "-p", "again", "--no-save"), home, dir))
	if !strings.Contains(verbose, "[tokens researcher 0]") || !strings.Contains(verbose, "[tokens main]") {
		t.Fatalf("-v does not count tokens per agent:\n%s", verbose)
	}

	js, _, code := run(t, inHome(t, command(t, srv, "-p", "again", "--json", "--no-save"), home, dir))
	agents := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var ev struct{ Agent string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(line, err)
		}
		agents[ev.Agent] = true
	}
	if code != 0 || !agents[""] || !agents["researcher 0"] {
		t.Fatalf("--json agents %v", agents)
	}
}

// TestTUISubAgentAndCancel: in the REPL the sub-agent's work is shown
// indented and tagged with its id; Ctrl+C while it streams closes its
// stream, ends the turn, and the next question works.
func TestTUISubAgentAndCancel(t *testing.T) {
	t.Parallel()
	srv := researchServer(t)
	tm := startTermOpts(t, srv, termOpts{config: personaConfig})
	_ = os.WriteFile(filepath.Join(tm.dir, "notes.txt"), []byte("the build is green\n"), 0o600)
	tm.ask("check the notes")
	tm.waitFor("The researcher found: notes.txt says the build is green", 10*time.Second)
	scr := tm.screen()
	for _, want := range []string{"⤷ researcher 0", "what does notes.txt say?", "researcher 0 answered"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, scr)
		}
	}

	gate := oaitest.NewGate()
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if strings.HasPrefix(req.Messages[0].Text(), "You research") {
			return oaitest.Answer{Text: "a long report that never ends", Piece: 8, Gate: gate, GateAfter: 1}
		}
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return oaitest.Answer{Text: "unexpected"}
		}
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "after") {
			return oaitest.Answer{Text: "the next question works"}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "d2", Name: "agent", Args: `{"name":"researcher","task":"a slow one"}`}}}
	})
	tm.ask("delegate a slow one")
	select {
	case <-gate.Entered():
	case <-time.After(10 * time.Second):
		t.Fatalf("the sub-agent never streamed:\n%s", tm.screen())
	}
	tm.keys("C-c")
	wantHangup(t, srv, "of the sub-agent after Ctrl+C")
	tm.waitFor("cancelled", 5*time.Second)
	tm.ask("after the cancel")
	tm.waitFor("the next question works", 10*time.Second)
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// TestSubAgentOnlyPersonaIsNotTheMainAgent: --agent with a persona that
// uses a tool kept for sub-agents says why it cannot be the main agent.
func TestSubAgentOnlyPersonaIsNotTheMainAgent(t *testing.T) {
	t.Parallel()
	srv := researchServer(t)
	home, dir := t.TempDir(), t.TempDir()
	writeConfig(t, home, personaConfig)
	_, errOut, code := run(t, inHome(t, command(t, srv, "--agent", "researcher", "-p", "x"), home, dir))
	if code != 1 || !strings.Contains(errOut, "sub_agents_only keeps for sub-agents") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// looperServer plays a main model that hands a task to the looper
// persona, and a looper that lists files until its budget ends; it counts
// the looper's requests.
func looperServer(t *testing.T) (*oaitest.Server, *atomic.Int32) {
	srv := oaitest.New(t)
	var subCalls atomic.Int32
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case len(req.Tools) == 0:
			return oaitest.Answer{Text: "what the looper gathered"}
		case strings.HasPrefix(req.Messages[0].Text(), "You loop"):
			subCalls.Add(1)
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("s%d", req.Index), Name: "list_files", Args: `{"path":"."}`}}}
		case last.Role == "tool":
			return oaitest.Answer{Text: "the looper said its piece"}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "d1", Name: "agent", Args: `{"name":"looper","task":"list the files, again and again"}`}}}
	})
	return srv, &subCalls
}

// TestSubAgentsShareTheTurnsBudget: a sub-agent spends its caller's step
// budget (its persona's max_steps only caps its share): a 3-step turn whose
// sub-agent loops makes a handful of calls, not the persona's 50; the
// budget running out in the sub-agent ends in its synthesized answer.
func TestSubAgentsShareTheTurnsBudget(t *testing.T) {
	t.Parallel()
	srv, subCalls := looperServer(t)
	cmd := command(t, srv, "--max-steps", "3", "-p", "go")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[agents.looper]\ninstructions = \"You loop.\"\nmax_steps = 50\ntools = [\"list_files\"]\n")
	out, errOut, code := run(t, cmd)
	n := subCalls.Load()
	if code != 0 || n > 4 || !strings.Contains(errOut, "⤶ looper 0 answered: what the looper gathered") || !strings.Contains(out, "the looper said its piece") {
		t.Fatalf("exit %d, the sub-agent asked %d times\nstdout %s\nstderr %s", code, n, out, errOut)
	}
}

// TestPersonaWithAnUnknownToolIsRefusedAtStart: a persona naming a tool
// chat does not have stops chat at start with what to fix, before any
// request (it was met mid-turn, by the model).
func TestPersonaWithAnUnknownToolIsRefusedAtStart(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "never asked"})
	cmd := command(t, srv, "-p", "hi")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[agents.helper]\ninstructions = \"x\"\ntools = [\"read_file\", \"read_mind\"]\n")
	_, errOut, code := run(t, cmd)
	if code != 1 || !strings.Contains(errOut, `"read_mind"`) || !strings.Contains(errOut, "[agents.helper]") || srv.RequestCount() != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.RequestCount(), errOut)
	}
}

// TestPersonaWithNoTools: tools = [] is a persona with no tools at all
// (it got every tool); without the key it gets the caller's.
func TestPersonaWithNoTools(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "just words"})
	cmd := command(t, srv, "--agent", "talker", "-p", "hi")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[agents.talker]\ninstructions = \"You only talk.\"\ntools = []\n")
	if _, errOut, code := run(t, cmd); code != 0 {
		t.Fatal(errOut)
	}
	if tools := srv.Requests()[0].ToolNames(); len(tools) != 0 {
		t.Fatalf("a persona with tools = [] was offered %v", tools)
	}
}

// TestPersonaOwnBudgetNotice: a persona's max_steps caps its own share:
// its budget notice is its own ("looper 0"), in its caller's turn, and the
// caller goes on.
func TestPersonaOwnBudgetNotice(t *testing.T) {
	t.Parallel()
	srv, _ := looperServer(t)
	cmd := command(t, srv, "--json", "-p", "go")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[agents.looper]\ninstructions = \"You loop.\"\nmax_steps = 2\ntools = [\"list_files\"]\n")
	out, errOut, code := run(t, cmd)
	if code != 0 || !strings.Contains(out, `{"type":"fallback_notice","agent":"looper 0","turn":1,"reason":"the agent used its 2 steps`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, `"type":"fallback_notice","turn"`) {
		t.Errorf("the main agent's budget ran out too:\n%s", out)
	}
}
