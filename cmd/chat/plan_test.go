package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/oaitest"
)

// planCall is the model keeping its task list.
func planCall(id string, statuses ...string) oaitest.Answer {
	var steps []map[string]string
	for i, s := range statuses {
		steps = append(steps, map[string]string{"step": []string{"read the code", "change it", "test it"}[i], "status": s})
	}
	args, _ := json.Marshal(map[string]any{"plan": steps})
	return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "update_plan", Args: string(args)}}}
}

// TestPlanReachesEveryFrontEnd: the task list the model keeps reaches
// print mode's stderr (each change), --json as plan events, and an editor
// as the protocol's plan updates; the list is saved with the session.
func TestPlanReachesEveryFrontEnd(t *testing.T) {
	t.Parallel()
	script := func() []oaitest.Reply {
		return []oaitest.Reply{planCall("p1", "in_progress", "pending", "pending"), planCall("p2", "completed", "completed", "in_progress"),
			oaitest.Answer{Text: "all three done"}}
	}
	srv := oaitest.New(t, script()...)
	w := newWorld(t, srv)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n")
	out, errOut, code := w.run("", "-p", "do the three things")
	if code != 0 || !strings.Contains(out, "all three done") || strings.Contains(out, "plan (") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if strings.Count(errOut, "plan (") != 2 || !strings.Contains(errOut, "plan (2 of 3 done)") || !strings.Contains(errOut, "▸ test it") {
		t.Fatalf("stderr: %s", errOut)
	}
	if !strings.Contains(srv.Requests()[0].Messages[0].Text(), "keep a task list with update_plan") {
		t.Fatal("the system prompt does not say when to keep a task list")
	}

	for _, r := range script() {
		srv.Push(r)
	}
	out, _, code = w.run("", "--json", "-p", "again")
	var plans int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type  string `json:"type"`
			Steps []struct{ Step, Status string }
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "plan" {
			plans++
			if len(ev.Steps) != 3 || ev.Steps[0].Step != "read the code" {
				t.Fatalf("a plan event: %s", line)
			}
		}
	}
	if code != 0 || plans != 2 {
		t.Fatalf("exit %d, %d plan events:\n%s", code, plans, out)
	}
	if listed, _, _ := w.run("", "sessions", "list"); !strings.Contains(listed, "again") {
		t.Fatalf("sessions: %s", listed)
	}

	for _, r := range script() {
		srv.Push(r)
	}
	e := w.acpInProcess()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	if _, err := e.prompt(ctx, id, acp.TextBlock("once more")); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var last *acp.SessionUpdatePlan
	n := 0
	for _, u := range e.updates {
		if u.Plan != nil {
			last, n = u.Plan, n+1
		}
	}
	if n != 2 || len(last.Entries) != 3 || last.Entries[2].Status != acp.PlanEntryStatusInProgress || last.Entries[0].Content != "read the code" {
		t.Fatalf("%d plan updates, last %+v", n, last)
	}
}

// TestTUIPlanInPlace: in the REPL, the list stays in view while the turn
// runs and changes in place (the model is held after its first update, so
// the screen is read mid-turn), then lands once, final, in the scrollback.
func TestTUIPlanInPlace(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	second := planCall("p2", "completed", "in_progress", "pending")
	second.Gate, second.GateAfter = gate, 0
	srv := oaitest.New(t, planCall("p1", "in_progress", "pending", "pending"), second,
		planCall("p3", "completed", "completed", "completed"), oaitest.Answer{Text: "the three are done"})
	tm := startTerm(t, srv, "--sandbox", "off")
	tm.ask("do the three things")
	<-gate.Entered()
	live := tm.waitFor("plan · 0 of 3 done", 10*loadAllowance*time.Second)
	if !strings.Contains(live, "▸ read the code") {
		t.Fatalf("live:\n%s", live)
	}
	gate.Release()
	screen := tm.waitFor("the three are done", 10*loadAllowance*time.Second)
	tm.waitIdle(10 * loadAllowance * time.Second)
	screen = tm.screen()
	if strings.Count(screen, "plan · 3 of 3 done") != 1 || strings.Contains(screen, "plan · 1 of 3 done") || strings.Contains(screen, "plan · 0 of 3 done") {
		t.Fatalf("after the turn, the list should be in the scrollback once, final:\n%s", screen)
	}
}
