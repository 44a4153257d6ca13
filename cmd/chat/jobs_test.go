package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

func bgCall(id, command string, background bool) oaitest.Answer {
	args := `{"command":` + quote(command)
	if background {
		args += `,"background":true`
	}
	return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell", Args: args + "}"}}}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestBackgroundServerInTheBox: a server started in the background (in
// the box, on its own loopback) answers a command of a later step; the
// model reads the job's output and stops it; print mode stops what is
// still running before it exits, and says so. As root and as an ordinary
// user.
func TestBackgroundServerInTheBox(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().ABI == 0 {
		t.Skip("no sandbox here (Landlock)")
	}
	for i, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			port := fmt.Sprint(8765 + i)
			srv := oaitest.New(t,
				bgCall("s1", "python3 -u -m http.server "+port+" --bind 127.0.0.1", true),
				bgCall("s2", "sleep 1; python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:"+port+"/\").status)'", false),
				oaitest.Answer{Calls: []oaitest.Call{{ID: "o1", Name: "job_output", Args: `{"id":1}`}}},
				bgCall("s3", "sleep 300", true),
				oaitest.Answer{Calls: []oaitest.Call{{ID: "k1", Name: "job_stop", Args: `{"id":1}`}}},
				oaitest.Answer{Text: "the server answered"})
			out, errOut, code := newUserRun(t, u, srv).run("-p", "serve and check")
			if code != 0 || !strings.Contains(out, "the server answered") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			reqs := srv.Requests()
			result := func(i int) string { return reqs[i].Messages[len(reqs[i].Messages)-1].Text() }
			if r := result(1); !strings.Contains(r, "started background job 1") || !strings.Contains(r, "running") {
				t.Fatalf("starting the job: %q", r)
			}
			if r := result(2); !strings.Contains(r, "200") {
				t.Fatalf("the later step's request to the job: %q", r)
			}
			if r := result(3); !strings.Contains(r, `"GET / HTTP/1.1" 200`) {
				t.Fatalf("job_output: %q", r)
			}
			if r := result(5); !strings.Contains(r, "job 1 stopped") {
				t.Fatalf("job_stop: %q", r)
			}
			if !strings.Contains(errOut, "stopped 1 background job") {
				t.Fatalf("print mode did not say it stopped the job left running:\n%s", errOut)
			}
		})
	}
}

// TestTUIJobsOutliveTheTurnNotChat: in the REPL a background server (in
// the box, on its loopback) answers a later step's curl and keeps
// running after its turn (and after Ctrl+C cancels the next one), /ps
// lists it, the status bar counts it, /stop ends it; a job still running
// when chat is killed with kill -9 does not outlive it.
func TestTUIJobsOutliveTheTurnNotChat(t *testing.T) {
	t.Parallel()
	first := fmt.Sprintf("chat-test-job-%d-a", os.Getpid())
	second := fmt.Sprintf("chat-test-job-%d-b", os.Getpid())
	gate := oaitest.NewGate()
	port := fmt.Sprint(18000 + os.Getpid()%1000)
	srv := oaitest.New(t,
		// The marker goes in python's own command line (-X takes any
		// name): python3 may be a shim that execs the real one.
		bgCall("j1", fmt.Sprintf("m=%s; exec python3 -X ${m}%s -m http.server %s --bind 127.0.0.1", first[:len(first)/2], first[len(first)/2:], port), true),
		bgCall("c1", "sleep 1; curl -s -o /dev/null -w 'status %{http_code}' http://127.0.0.1:"+port+"/", false),
		oaitest.Answer{Text: "started it"},
		oaitest.Answer{Text: "never finished", Gate: gate},
		bgCall("j2", execAs(second, "sleep 300"), true), oaitest.Answer{Text: "started another"})
	tm := startTerm(t, srv)
	tm.ask("start a job")
	tm.waitFor("started it", 10*loadAllowance*time.Second)
	waitForProcess(t, first, true)
	if curl := srv.Requests()[2].Messages; !strings.Contains(curl[len(curl)-1].Text(), "status 200") {
		t.Fatalf("the server in the box did not answer the later step's curl: %q", curl[len(curl)-1].Text())
	}
	tm.waitFor("jobs 1 (/ps)", 10*loadAllowance*time.Second)
	tm.ask("something slow")
	<-gate.Entered()
	tm.keys("C-c")
	tm.waitFor("background jobs keep running (1)", 10*loadAllowance*time.Second)
	gate.Release()
	if len(processesWith(first)) == 0 {
		t.Fatal("Ctrl+C stopped the background job")
	}
	tm.waitForInput("› something slow") // the cancelled question is back in the input
	tm.keys("C-c")                      // which Ctrl+C clears
	tm.waitForInput("› Ask anything · / for commands · shift+enter or ctrl+j for a new line")
	tm.ask("/ps")
	if screen := tm.waitFor("background jobs (/ps N", 10*loadAllowance*time.Second); !strings.Contains(screen, "running") {
		t.Fatalf("/ps:\n%s", screen)
	}
	tm.ask("/ps 1")
	tm.waitFor("job 1 · running", 10*loadAllowance*time.Second) // followed live, above the input
	tm.keys("Escape")                                           // alone: an Esc with a key right after it reads as Alt+key
	for deadline := time.Now().Add(10 * loadAllowance * time.Second); strings.Contains(tm.screen(), "job 1 · running ·"); time.Sleep(30 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("esc did not stop following:\n%s", tm.screen())
		}
	}
	tm.ask("/stop 1")
	tm.waitFor("job 1 stopped", 10*loadAllowance*time.Second)
	waitForProcess(t, first, false)

	tm.ask("start another")
	tm.waitFor("started another", 10*loadAllowance*time.Second)
	waitForProcess(t, second, true)
	sh, _ := strconv.Atoi(strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "main", "#{pane_pid}")))
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sh, sh))
	for _, f := range strings.Fields(string(children)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	waitForProcess(t, second, false)
}

// TestFloodingJobKeepsMemoryFlat: a background job that prints 100 MB
// costs chat its ring (1 MiB), not the output: chat's peak RSS stays far
// below what the job printed.
func TestFloodingJobKeepsMemoryFlat(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().ABI == 0 {
		t.Skip("no sandbox here (Landlock)")
	}
	srv := oaitest.New(t,
		bgCall("f1", "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo flood-done; touch flood.done", true),
		// The next step waits for the job's end, not for a clock: a
		// loaded machine floods slower (it had written 61 MB in 3 s).
		bgCall("w1", "until [ -e flood.done ]; do sleep 0.1; done", false),
		oaitest.Answer{Calls: []oaitest.Call{{ID: "o1", Name: "job_output", Args: `{"id":1}`}}},
		oaitest.Answer{Text: "read it"})
	cmd := command(t, srv, "-p", "flood")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// chat's own peak (VmHWM), not its children's: the box and the
	// job's commands are other processes.
	peak := watchPeakRSS(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	rss := <-peak << 10
	if out := stdout.String(); !strings.Contains(out, "read it") {
		t.Fatalf("stdout: %s\nstderr: %s", out, stderr.String())
	}
	reqs := srv.Requests()
	if r := reqs[3].Messages[len(reqs[3].Messages)-1].Text(); !strings.Contains(r, "flood-done") || !strings.Contains(r, "bytes not shown") || len(r) > 20<<10 {
		t.Fatalf("job_output after the flood: %d bytes, %q…", len(r), r[:min(len(r), 200)])
	}
	if rss > 80<<20 {
		t.Fatalf("chat's peak RSS %d MB while a job printed 100 MB", rss>>20)
	}
	t.Logf("peak RSS %.1f MB with a 100 MB flood", float64(rss)/(1<<20))
}

// TestACPShowsAJobOnItsCall: in an editor, a background job is its
// run_shell call, in progress while the job runs, with its output as it
// comes, and finished when the job ends (here: stopped by the model in
// the next prompt).
func TestACPShowsAJobOnItsCall(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		bgCall("bg1", "echo hello-from-job; exec sleep 300", true), oaitest.Answer{Text: "it runs"},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "k1", Name: "job_stop", Args: `{"id":1}`}}}, oaitest.Answer{Text: "stopped it"})
	w := newWorld(t, srv)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n")
	e := w.acpInProcess()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	if _, err := e.prompt(ctx, id, acp.TextBlock("start it")); err != nil {
		t.Fatal(err)
	}
	statusOf := func() (acp.ToolCallStatus, string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		var status acp.ToolCallStatus
		var text string
		for _, u := range e.updates {
			if c := u.ToolCallUpdate; c != nil && c.ToolCallId == "bg1" {
				if c.Status != nil {
					status = *c.Status
				}
				for _, content := range c.Content {
					if content.Content != nil && content.Content.Content.Text != nil {
						text = content.Content.Content.Text.Text
					}
				}
			}
		}
		return status, text
	}
	if status, text := statusOf(); status != acp.ToolCallStatusInProgress || !strings.Contains(text, "hello-from-job") {
		t.Fatalf("while the job runs: %q %q", status, text)
	}
	if _, err := e.prompt(ctx, id, acp.TextBlock("stop it")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * loadAllowance * time.Second)
	for status, text := statusOf(); status != acp.ToolCallStatusCompleted || !strings.Contains(text, "stopped"); status, text = statusOf() {
		if time.Now().After(deadline) {
			t.Fatalf("after job_stop: %q %q", status, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
