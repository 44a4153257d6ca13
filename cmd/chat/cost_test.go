package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"charm.land/catwalk/pkg/embedded"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestMaxCostEndsALoopingTurn: a model that calls tools forever, priced
// by the config, is stopped by --max-cost at the next step; the turn ends
// with the labelled synthesized answer, not nothing.
func TestMaxCostEndsALoopingTurn(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if len(req.Tools) == 0 {
			return oaitest.Answer{Text: "**Synthesized answer** from what was gathered."}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("c%d", req.Index), Name: "list_files", Args: `{"path":"."}`}}}
	})
	cmd := command(t, srv, "--max-steps", "0", "--max-cost", "0.02", "-p", "loop forever")
	// ~1,100 prompt tokens at $10 per million: about a cent a request.
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[models.scripted-model]\ninput_per_mtok = 10.0\noutput_per_mtok = 30.0\n")
	out, errOut, code := run(t, cmd)
	if code != 0 || !strings.Contains(out, "Synthesized answer") || !strings.Contains(errOut, "the turn spent its budget of $0.02") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := srv.RequestCount(); n < 3 || n > 5 {
		t.Errorf("%d requests: the budget should stop the loop after two or three", n)
	}
	home := strings.TrimPrefix(cmd.Env[0], "HOME=")
	list, _, _ := run(t, inHome(t, command(t, srv, "sessions", "list"), home, cmd.Dir))
	if !strings.Contains(list, "COST") || !strings.Contains(list, "$0.0") {
		t.Errorf("sessions list has no cost:\n%s", list)
	}
}

// TestCostFromTheCatalog: a model priced by the catalog (through a local
// proxy, named with catalog =) costs what the catalog's prices make of the
// usage the server reported, in --json and -v; a local model is free; an
// unknown hosted one has no price.
func TestCostFromTheCatalog(t *testing.T) {
	t.Parallel()
	provider, model, in, out := "", "", 0.0, 0.0
	for _, p := range embedded.GetAll() {
		for _, m := range p.Models {
			if m.CostPer1MIn > 0 && m.CostPer1MOut > 0 && model == "" {
				provider, model, in, out = string(p.ID), m.ID, m.CostPer1MIn, m.CostPer1MOut
			}
		}
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "priced words"}, oaitest.Answer{Text: "more priced words"})
	cmd := command(t, srv, "--json", "--model", model, "-p", "hi")
	home := strings.TrimPrefix(cmd.Env[0], "HOME=")
	writeConfig(t, home, fmt.Sprintf("[models.%q]\ncatalog = %q\n", model, provider))
	stdout, errOut, code := run(t, cmd)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var usage struct {
		Prompt     int      `json:"prompt_tokens"`
		Completion int      `json:"completion_tokens"`
		Cost       *float64 `json:"cost_usd"`
	}
	lines := bufio.NewScanner(strings.NewReader(stdout))
	for lines.Scan() {
		if strings.Contains(lines.Text(), `"type":"usage"`) {
			_ = json.Unmarshal(lines.Bytes(), &usage)
		}
	}
	want := (float64(usage.Prompt)*in + float64(usage.Completion)*out) / 1e6
	if usage.Cost == nil || math.Abs(*usage.Cost-want) > 1e-12 || usage.Prompt == 0 {
		t.Fatalf("cost %v for %+v, want %v (%s at %s: $%v in, $%v out)\n%s", usage.Cost, usage, want, model, provider, in, out, stdout)
	}
	v := command(t, srv, "-v", "--model", model, "-p", "hi")
	v = inHome(t, v, home, v.Dir)
	_, verbose, _ := run(t, v)
	if !strings.Contains(verbose, "· $") {
		t.Errorf("-v shows no cost: %s", verbose)
	}
	local, localErr, _ := run(t, command(t, oaitest.New(t, oaitest.Answer{Text: "free"}), "--json", "-p", "hi"))
	if !strings.Contains(local, `"cost_usd":0`) {
		t.Errorf("a local model is not free: %s %s", local, localErr)
	}
}

// TestTUICostAsYouGo: with a priced model the status bar shows the
// session's cost, what the next request would carry while the person
// types, and /cost breaks it down.
func TestTUICostAsYouGo(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "an answer that costs"})
	tm := startTermOpts(t, srv, termOpts{config: "[models.scripted-model]\ninput_per_mtok = 3.0\noutput_per_mtok = 15.0\n"})
	tm.typeText("what will this cost")
	tm.waitFor("next ~", 10*time.Second)
	if !strings.Contains(tm.screen(), "next ~") || !strings.Contains(tm.screen(), " $0.00") {
		t.Fatalf("no estimate with a price while typing:\n%s", tm.screen())
	}
	tm.keys("Enter")
	tm.waitFor("an answer that costs", 10*time.Second)
	tm.waitIdle(10 * time.Second)
	tm.ask("/cost")
	// Its last line: a long notice may reach the screen over two frames,
	// and one read at "last turn" could come between them.
	screen := tm.waitFor("prices: config: $3 input", 10*time.Second)
	for _, want := range []string{"session  input", "output", "next request ~", "prices: config: $3 input"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/cost has no %q:\n%s", want, screen)
		}
	}
	if !strings.Contains(screen, "↑") || !strings.Contains(screen, " $0.0") {
		t.Errorf("the status bar has no cost:\n%s", screen)
	}
}
