package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/hook"
	"github.com/chatrepl/chat/internal/oaitest"
)

// TestTheAgentThroughTheRun: what a front end asks of the main agent
// goes through the run and reaches it.
func TestTheAgentThroughTheRun(t *testing.T) {
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	m := newMachine(t)
	r := openClosed(t, m.spec(srv))
	ctx := context.Background()
	r.SetModel("other-model")
	r.SetSystem("Answer in French.")
	r.SetContextWindow(32_000)
	r.AddContext("the ! command printed 42")
	if r.Model() != "other-model" || r.ContextWindow() != 32_000 || r.StepLimit() == nil {
		t.Fatalf("model %q window %d", r.Model(), r.ContextWindow())
	}
	if out := r.NewTurn(ctx, "hello").Run(); out.Err != nil {
		t.Fatal(out.Err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Model != "other-model" || !strings.Contains(last.Messages[0].Text(), "Answer in French.") || !strings.Contains(last.Messages[len(last.Messages)-1].Text(), "printed 42") {
		t.Fatalf("the request: model %q, messages %+v", last.Model, last.Messages)
	}
	if p := r.ContextReport(); p.Window != 32_000 || p.History == 0 || r.ContextSize() == 0 {
		t.Fatalf("context %+v size %d", p, r.ContextSize())
	}
	if err := r.Compact(ctx, "").Run().Err; err != nil && !errors.Is(err, ErrNothingToCompact) {
		t.Fatal(err)
	}
	r.SetSchema([]byte(`{"type":"object"}`))
	if string(r.Schema()) != `{"type":"object"}` {
		t.Fatal("the schema was not kept")
	}
	old := r.Session()
	fresh := r.NewSession()
	if r.Session() != fresh || fresh == old || fresh.Len() != 1 {
		t.Fatal("a new session did not take over")
	}
	r.SetSession(old)
	if r.Session() != old {
		t.Fatal("switching back failed")
	}
	r.SettleWindow(ctx)
	r.Cancel("nothing runs")
}

// TestPlanModeWithoutABox: without a sandbox plan mode still holds (the
// writing tools are refused) and says commands cannot run.
func TestPlanModeWithoutABox(t *testing.T) {
	m := newMachine(t)
	r := openClosed(t, m.spec(oaitest.New(t, write("plan.txt", "x"), oaitest.Answer{Text: "planned"})))
	if err := r.SetPlanning(true); !errors.Is(err, errNotBoxed) || !r.Planning() {
		t.Fatalf("%v, planning %v", err, r.Planning())
	}
	if out := r.NewTurn(context.Background(), "write plan.txt").Run(); out.Err != nil {
		t.Fatal(out.Err)
	}
	if r.Network() != nil {
		t.Fatal("no box, and a network")
	}
	if _, err := r.Files(0); err != nil {
		t.Fatal(err)
	}
	if err := r.SetPlanning(false); err != nil || r.Planning() {
		t.Fatalf("%v, planning %v", err, r.Planning())
	}
	if !strings.Contains(EditedPlanPrompt("1. do it"), "1. do it") || processes(1) != "1 running process" || processes(2) != "2 running processes" || them(1) != "it" || them(3) != "them" {
		t.Fatal("the plan-mode sentences")
	}
	var said []string
	r.OnScreen(func(s string) { said = append(said, s) })
	r.say("on the screen")
	if len(said) != 1 {
		t.Fatal("say did not reach the screen")
	}
}

// TestSmallParts: the test resolver's table, where a hook runs, a saved
// change, an endpoint nobody configured.
func TestSmallParts(t *testing.T) {
	if testResolver("") != nil {
		t.Fatal("a resolver without a table")
	}
	ips, err := testResolver("Box.Example=127.0.0.9, bad=nope")(context.Background(), "box.example")
	if err != nil || len(ips) != 1 || ips[0].IP.String() != "127.0.0.9" {
		t.Fatalf("%v %v", ips, err)
	}
	if !strings.Contains(where(hook.Hook{Unboxed: true}), "outside the sandbox") || !strings.Contains(where(hook.Hook{}), "in the sandbox") {
		t.Fatal("where a hook runs")
	}
	m := newMachine(t)
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Echoer{}.Reply)
	r := openClosed(t, m.spec(srv))
	ask(t, r, "keep me")
	r.Sessions().Changed(r.Session())
	if file := sessionFile(t, r); !strings.Contains(file, "keep me") {
		t.Fatal("the change was not saved")
	}
	r.Loop().SetContext(context.Background())
	if r.Listeners() == nil {
		t.Fatal("no listeners")
	}
}

// TestRewindReportsEveryList: what a rewind left alone, could not
// restore, or refused is listed, each path on a line of its own.
func TestRewindReportsEveryList(t *testing.T) {
	var b strings.Builder
	WriteRewind(&b, checkpoint.Result{Conflicts: []string{"a.txt"}, Unrestorable: []string{"big.bin"}, Refused: []string{".git/config"}}, true, "/rewind 1 files force")
	out := b.String()
	for _, want := range []string{"left alone", "  a.txt", "cannot restore", "  big.bin", "not restored", "  .git/config"} {
		if !strings.Contains(out, want) {
			t.Fatalf("%q missing from:\n%s", want, out)
		}
	}
}

// TestNoEndpointSaysWhere: with nothing configured and no local server,
// the error says how to set one and where chat looked.
func TestNoEndpointSaysWhere(t *testing.T) {
	m := newMachine(t)
	cfg := config.Config{Sources: map[string]string{}}
	err := ResolveEndpoint(context.Background(), m.env, &cfg)
	if err == nil {
		t.Skipf("a local server answered here (%s)", cfg.BaseURL)
	}
	if !errors.Is(err, config.ErrNotConfigured) || !strings.Contains(err.Error(), "no local server answered") {
		t.Fatal(err)
	}
}

// TestAgentsFromTheConfig: an agent's tools (none at all included) and
// its schema come from the config; a schema that is missing or not one
// is the config's error, naming the agent.
func TestAgentsFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.json"), []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"type":12}`), 0o600)
	def, err := fromConfig("reviewer", config.AgentConfig{Tools: []string{}, StructuredOutput: "out.json"}, dir)
	if err != nil || def.Tools == nil || len(def.Tools) != 0 || len(def.StructuredOutput) == 0 {
		t.Fatalf("%+v %v", def, err)
	}
	for _, file := range []string{"missing.json", "bad.json"} {
		if _, err := fromConfig("reviewer", config.AgentConfig{StructuredOutput: file}, dir); err == nil || !strings.Contains(err.Error(), "agents.reviewer") {
			t.Fatalf("%s: %v", file, err)
		}
	}
}
