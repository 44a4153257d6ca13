package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

func TestPrintModeRefusesWithoutYes(t *testing.T) {
	t.Parallel()
	write := oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"out.txt","content":"hi\n"}`}}}
	srv := oaitest.New(t, write, oaitest.Answer{Text: "could not write"}, write, oaitest.Answer{Text: "written"})
	home, dir := t.TempDir(), t.TempDir()
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "write out.txt"), home, dir))
	if code != 0 || !strings.Contains(out, "could not write") || !strings.Contains(errOut, "needs the user's approval") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Fatal("the file was written without approval")
	}
	if got := srv.Requests()[1].Messages[3].Text(); !strings.Contains(got, "--yes") {
		t.Fatalf("the model was told %q", got)
	}
	if out, _, code := run(t, inHome(t, command(t, srv, "--yes", "-p", "write out.txt"), home, dir)); code != 0 || !strings.Contains(out, "written") {
		t.Fatal(out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Fatal(err, string(b))
	}
}

// TestTUIApproveThenCancelShell approves a write after seeing its diff,
// then approves a long command and stops it with Ctrl+C: the process tree
// is gone and the session goes on.
func TestTUIApproveThenCancelShell(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("chat-test-sleeper-%d-approve", os.Getpid())
	srv := oaitest.New(t,
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w1", Name: "write_file", Args: `{"path":"hello.txt","content":"hello\n"}`}}},
		oaitest.Answer{Text: "file written"},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "s1", Name: "run_shell", Args: fmt.Sprintf(`{"command":"(%s) & echo started > child.pid; wait"}`, execAs(marker, "sleep 300"))}}},
		oaitest.Answer{Text: "after the cancel"})
	tm := startTerm(t, srv, "--sandbox", "off")
	tm.ask("write hello.txt")
	tm.waitFor("+hello", 10*time.Second) // the diff, before anything is written
	if _, err := os.Stat(filepath.Join(tm.dir, "hello.txt")); err == nil {
		t.Fatal("written before approval")
	}
	tm.answer("y")
	tm.waitFor("file written", 10*time.Second)
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "hello.txt")); string(b) != "hello\n" {
		t.Fatalf("file %q", b)
	}
	tm.ask("start the server")
	tm.waitFor("sleep 300) & echo started", 10*time.Second)
	tm.answer("y")
	waitForProcess(t, marker, true)
	tm.keys("C-c")
	tm.waitFor("⏹ cancelled", 5*time.Second)
	waitForProcess(t, marker, false)
	tm.ask("next")
	tm.waitFor("after the cancel", 10*time.Second)
	if len(srv.Rejected()) > 0 {
		t.Fatal(srv.Rejected())
	}
}

// execAs is a shell fragment that runs prog under the name marker, without
// marker appearing in the shell's own command line (where waitForProcess
// would find it before prog runs).
func execAs(marker, prog string) string {
	half := len(marker) / 2
	return fmt.Sprintf("m=%s; exec -a ${m}%s %s", marker[:half], marker[half:], prog)
}

// waitForProcess waits (40 s at most) until a process whose command line
// holds marker runs (running) or none does. Pids inside a sandbox are not
// the host's, so a marker names the process.
func waitForProcess(t *testing.T, marker string, running bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * loadAllowance * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if (len(processesWith(marker)) > 0) == running {
			return
		}
		if time.Now().After(deadline) {
			ps, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,sid,stat,etime,args").CombinedOutput()
			var lines []string
			for _, l := range strings.Split(string(ps), "\n") {
				if strings.Contains(l, marker) || strings.Contains(l, "PID") {
					lines = append(lines, l)
				}
			}
			for _, pid := range processesWith(marker) {
				for p := pid; p > 1; {
					stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
					cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
					lines = append(lines, fmt.Sprintf("  chain %d: %.200q", p, strings.ReplaceAll(string(cmd), "\x00", " ")))
					f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
					if len(f) < 2 {
						break
					}
					p, _ = strconv.Atoi(f[1])
				}
			}
			t.Fatalf("after %s, a process %q running: %v\n%s", 10*loadAllowance*time.Second, marker, !running, strings.Join(lines, "\n"))
		}
	}
}

func processesWith(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestTUIToolsFitOneRow: /tools at 80 and 100 columns prints one row per
// tool, never wrapped, and the tools that never ask (agent, mcp_connect,
// skill) say so.
func TestTUIToolsFitOneRow(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 100, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t)
			home := t.TempDir()
			skill := filepath.Join(home, "c", "chat", "skills", "notes")
			_ = os.MkdirAll(skill, 0o700)
			_ = os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: notes\ndescription: keeps notes\n---\nbody\n"), 0o600)
			config := "[agents.helper]\ninstructions = \"Help.\"\n[mcp.web]\nurl = \"http://127.0.0.1:1/mcp\"\n"
			tm := startTermOpts(t, srv, termOpts{config: config, home: home, width: width, height: 30})
			tm.ask("/tools")
			tm.waitFor("tools:", 5*time.Second)
			// A list taller than the room above the frame is printed in
			// parts: read it once it is all there.
			var screen string
			var rows map[string]string
			for deadline := time.Now().Add(10 * time.Second * loadAllowance); ; time.Sleep(20 * time.Millisecond) {
				screen = tm.screen()
				rows = toolRows(screen)
				if len(rows) >= 6 && rows["skill"] != "" || time.Now().After(deadline) {
					break
				}
			}
			if rows == nil {
				t.Fatalf("no tools list:\n%s", screen)
			}
			for _, name := range []string{"read_file", "write_file", "run_shell", "agent", "mcp_connect", "skill"} {
				if _, ok := rows[name]; !ok {
					t.Errorf("%s has no row of its own (wrapped?):\n%s", name, screen)
				}
			}
			for _, name := range []string{"agent", "mcp_connect", "skill"} {
				if !strings.Contains(rows[name], "runs without asking") {
					t.Errorf("%s: %q", name, rows[name])
				}
			}
			// How a tool is treated is never cut; the description is.
			if !strings.Contains(rows["read_file"], "free here, asks outside") {
				t.Errorf("read_file's treatment is cut: %q", rows["read_file"])
			}
		})
	}
}

// toolRows are the rows of the last /tools list on screen, by tool name
// (nil: no list).
func toolRows(screen string) map[string]string {
	lines := strings.Split(screen, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "tools:" {
			start = i + 1
		}
	}
	if start < 0 {
		return nil
	}
	rows := map[string]string{}
	for _, l := range lines[start:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		rows[strings.Fields(l)[0]] = l
	}
	return rows
}

// TestTUIModelNotListedIsSaid: /model takes any name (some servers list
// nothing), but one the server's /v1/models does not list is said; a
// listed one is not.
func TestTUIModelNotListedIsSaid(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetModels("scripted-model", "other-model")
	tm := startTerm(t, srv)
	tm.ask("/model other-model")
	tm.waitFor("model is now other-model", 10*loadAllowance*time.Second)
	tm.ask("/model no-such-model")
	scr := tm.waitFor("the server does not list no-such-model", 10*loadAllowance*time.Second)
	if strings.Contains(scr, "does not list other-model") {
		t.Fatalf("a listed model was said to be unlisted:\n%s", scr)
	}
}

// TestTUITurnHintsGoWithTheTurn: a hint about the running turn goes when
// it no longer applies: "editing a queued message" once the edit is
// queued again, "plan mode changes between turns" once the turn ended.
func TestTUITurnHintsGoWithTheTurn(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "slow answer done", Gate: gate}, oaitest.Answer{Text: "later done"})
	tm := startTerm(t, srv)
	tm.ask("something slow")
	<-gate.Entered()
	tm.typeText("for later")
	tm.keys("Tab") // queued for after the turn
	tm.waitFor("for later", 10*loadAllowance*time.Second)
	tm.keys("Up") // taken out to edit
	tm.waitFor("editing a queued message", 10*loadAllowance*time.Second)
	tm.keys("Tab") // queued again
	gone := func(hint string) {
		t.Helper()
		for deadline := time.Now().Add(10 * loadAllowance * time.Second); strings.Contains(tm.screen(), hint); time.Sleep(30 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the hint %q stayed:\n%s", hint, tm.screen())
			}
		}
	}
	gone("editing a queued message")
	tm.keys("BTab")
	tm.waitFor("plan mode changes between turns", 10*loadAllowance*time.Second)
	gate.Release()
	tm.waitFor("later done", 10*loadAllowance*time.Second)
	gone("plan mode changes between turns")
}

// TestTUISandboxNoticeIsOneLine: the first screen says which box is in
// force in one line, and /sandbox says the rest (what a command may
// write, the network, the hidden folders).
func TestTUISandboxNoticeIsOneLine(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	srv := oaitest.New(t)
	tm := startTermOpts(t, srv, termOpts{width: 120, height: 40})
	scr := tm.waitFor("/sandbox (or chat sandbox) says what it allows", 10*time.Second)
	var line string
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "sandbox workspace-write") {
			line = l
		}
	}
	if !strings.Contains(line, "says what it allows") || strings.Contains(scr, "network only through") {
		t.Fatalf("the start notice is not one line:\n%s", scr)
	}
	tm.ask("/sandbox")
	tm.waitFor("network only through chat's proxy", 10*time.Second)
}
