package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
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
	tm.waitFor("the three are done", 10*loadAllowance*time.Second)
	tm.waitIdle(10 * loadAllowance * time.Second)
	screen := tm.screen()
	if strings.Count(screen, "plan · 3 of 3 done") != 1 || strings.Contains(screen, "plan · 1 of 3 done") || strings.Contains(screen, "plan · 0 of 3 done") {
		t.Fatalf("after the turn, the list should be in the scrollback once, final:\n%s", screen)
	}
}

// TestPlanModeWritesNothingUntilGo: in plan mode (print mode's --plan)
// the model's write is refused and its command runs in a box that writes
// nowhere: the files do not exist after it; the plan is kept; a later
// --continue --go carries it out, and then it writes. As root and as an
// ordinary user.
func TestPlanModeWritesNothingUntilGo(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().ABI == 0 {
		t.Skip("no sandbox here (Landlock)")
	}
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t,
				oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"planned.txt","content":"too early\n"}`}}},
				oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"echo x > made.txt && ls"}`}}},
				planCall("p1", "pending", "pending", "pending"),
				oaitest.Answer{Text: "1. read the code (main.go)\n2. change it (main.go)\n3. test it"},
				oaitest.Answer{Calls: []oaitest.Call{{ID: "w2", Name: "write_file", Args: `{"path":"planned.txt","content":"now\n"}`}}},
				oaitest.Answer{Text: "done"})
			r := newUserRun(t, u, srv)
			out, errOut, code := r.run("--plan", "--yes", "-p", "plan the change")
			if code != 0 || !strings.Contains(out, "1. read the code") || !strings.Contains(errOut, "plan mode: nothing was changed") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			for _, f := range []string{"planned.txt", "made.txt"} {
				if _, err := os.Stat(filepath.Join(r.dir, f)); !os.IsNotExist(err) {
					t.Fatalf("%s exists after plan mode: %v", f, err)
				}
			}
			reqs := srv.Requests()
			if first := reqs[0].Messages[1].Text(); !strings.Contains(first, "This is plan mode") {
				t.Fatalf("the model was not told it plans: %q", first)
			}
			if refused := reqs[1].Messages[len(reqs[1].Messages)-1].Text(); !strings.Contains(refused, "plan mode") {
				t.Fatalf("the write's refusal: %q", refused)
			}
			// The command ran, in the box: the kernel refused its write, and
			// the model is not sent to retry unsandboxed (plan mode refuses
			// that too: a wasted step).
			if ran := reqs[2].Messages[len(reqs[2].Messages)-1].Text(); !kernelRefusedWrite(ran) ||
				strings.Contains(ran, "unsandboxed") || !strings.Contains(ran, "this is plan mode") {
				t.Fatalf("the command in plan mode: %q", ran)
			}
			out, errOut, code = r.run("--continue", "--go", "--yes")
			if code != 0 || !strings.Contains(out, "done") {
				t.Fatalf("--go: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if b, err := os.ReadFile(filepath.Join(r.dir, "planned.txt")); err != nil || string(b) != "now\n" {
				t.Fatalf("after --go: %q %v", b, err)
			}
			last := srv.Requests()[len(srv.Requests())-2]
			if !strings.Contains(last.Messages[len(last.Messages)-1].Text(), "Go: carry out the plan above") {
				t.Fatalf("--go sent %s", last.Shape())
			}
		})
	}
}

// TestTUIPlanThenGo: /plan in the REPL plans without writing (the model's
// write is refused), says how to go on; typing asks for another plan (in
// plan mode still); /go carries it out.
func TestTUIPlanThenGo(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"early\n"}`}}},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: `{"command":"echo x > box.txt"}`}}},
		oaitest.Answer{Text: "1. write out.txt (out.txt)"},
		oaitest.Answer{Text: "1. write out.txt (out.txt)\n2. read it back"},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w2", Name: "write_file", Args: `{"path":"out.txt","content":"planned\n"}`}}},
		oaitest.Answer{Text: "wrote it as planned"})
	tm := startTerm(t, srv, "--yes")
	tm.ask("/plan write out.txt")
	tm.waitFor("plan ready · /go carries it out", 10*loadAllowance*time.Second)
	if screen := tm.screen(); !strings.Contains(screen, "plan mode") || !strings.Contains(screen, "1. write out.txt") {
		t.Fatalf("planning:\n%s", screen)
	}
	for _, f := range []string{"out.txt", "box.txt"} {
		if _, err := os.Stat(filepath.Join(tm.dir, f)); !os.IsNotExist(err) {
			t.Fatalf("%s written in plan mode: %v", f, err)
		}
	}
	if shell := srv.Requests()[2].Messages; !kernelRefusedWrite(shell[len(shell)-1].Text()) {
		t.Fatalf("the command's write in plan mode: %q", shell[len(shell)-1].Text())
	}
	tm.ask("also read it back")
	tm.waitFor("2. read it back", 10*loadAllowance*time.Second)
	reqs := srv.Requests()
	if refine := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Text(); !strings.Contains(refine, "This is plan mode") {
		t.Fatalf("the refinement was not sent in plan mode: %q", refine)
	}
	tm.ask("/go")
	tm.waitFor("wrote it as planned", 10*loadAllowance*time.Second)
	if b, err := os.ReadFile(filepath.Join(tm.dir, "out.txt")); err != nil || string(b) != "planned\n" {
		t.Fatalf("after /go: %q %v", b, err)
	}
}

// TestTUIPlanEditThenGo: /go edit opens the plan in $EDITOR; what the
// person saved is what is carried out.
func TestTUIPlanEditThenGo(t *testing.T) {
	t.Parallel()
	editor := filepath.Join(t.TempDir(), "edit-plan")
	if err := os.WriteFile(editor, []byte("#!/bin/sh\necho '2. and a line the person added' >> \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "1. write out.txt"}, oaitest.Answer{Text: "carried out the edited plan"})
	tm := startTermEnv(t, srv, "EDITOR="+editor)
	tm.ask("/plan write out.txt")
	tm.waitFor("plan ready", 10*loadAllowance*time.Second)
	tm.ask("/go edit")
	tm.waitFor("carried out the edited plan", 10*loadAllowance*time.Second)
	last := srv.Requests()[1].Messages
	if sent := last[len(last)-1].Text(); !strings.Contains(sent, "1. write out.txt\n2. and a line the person added") || strings.Contains(sent, "This is plan mode") {
		t.Fatalf("the edited plan sent: %q", sent)
	}
}

// kernelRefusedWrite says whether a command's output shows the kernel
// refusing its write: a read-only mount (bubblewrap's box) says so, and
// Landlock (the box chat makes itself, when bubblewrap is missing) says
// permission denied.
func kernelRefusedWrite(out string) bool {
	return strings.Contains(out, "Read-only file system") || strings.Contains(out, "Permission denied")
}
