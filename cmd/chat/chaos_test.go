package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// TestCrashChaos starts the real binary many times (CHAT_CHAOS_RUNS, 10 by
// default, make chaos: 100) on one growing session and kills it with
// SIGKILL at a random moment: while an answer streams, a command runs or
// a file is written. Every message the run had reported complete (its
// event is only emitted once the message is on disk) must be in the file,
// and the next --continue must send a history the strict server accepts.
func TestCrashChaos(t *testing.T) {
	runs := 10
	if v, err := strconv.Atoi(os.Getenv("CHAT_CHAOS_RUNS")); err == nil && v > 0 {
		runs = v
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	var mu = make(chan struct{}, 1)
	calls := 0
	srv := oaitest.New(t)
	srv.SetFallback(func(r oaitest.Request) oaitest.Reply {
		mu <- struct{}{}
		defer func() { <-mu }()
		calls++
		if r.Messages[len(r.Messages)-1].Role == "tool" || calls%3 == 0 {
			return oaitest.Answer{Text: "A streamed answer that takes a little while to arrive.", Piece: 4, Delay: 300 * time.Microsecond}
		}
		id := fmt.Sprint("call_", calls)
		if calls%2 == 0 {
			return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "run_shell", Args: `{"command":"sleep 0.02; echo done"}`}}}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: id, Name: "write_file", Args: fmt.Sprintf(`{"path":"out-%d.txt","content":"some content\n"}`, calls)}}}
	})
	home, dir := t.TempDir(), t.TempDir()
	store := session.Store{Dir: filepath.Join(home, ".local", "share", "chat", "sessions")}
	lost, seen := 0, 0
	for i := range runs {
		args := []string{"--json", "--yes", "-p", fmt.Sprint("question ", i)}
		if _, err := store.Latest(dir); err == nil {
			args = append([]string{"--continue"}, args...)
		}
		cmd := inHome(t, command(t, srv, args...), home, dir)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		events := make(chan map[string]any, 1000)
		go func() {
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				var ev map[string]any
				if json.Unmarshal(sc.Bytes(), &ev) == nil {
					events <- ev
				}
			}
			close(events)
		}()
		time.Sleep(time.Duration(20000+rng.IntN(180000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		var complete []map[string]any
		for ev := range events {
			if ev["type"] == "assistant" || ev["type"] == "tool_result" {
				complete = append(complete, ev)
			}
		}
		info, err := store.Latest(dir)
		if err != nil {
			if len(complete) > 0 {
				t.Fatalf("run %d reported messages but has no session file", i)
			}
			continue // killed before the session file was created
		}
		l, err := session.Load(info.Path)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		for _, ev := range complete {
			seen++
			if !onDisk(l.Messages, ev) {
				lost++
				t.Errorf("run %d: %v was reported complete but is not in the file", i, ev)
			}
		}
	}
	// One more run that is not killed: the history must be accepted.
	out, errOut, code := run(t, inHome(t, command(t, srv, "--continue", "--yes", "-p", "are you still there?"), home, dir))
	if code != 0 {
		t.Fatalf("the run after the crashes failed: %s %s", out, errOut)
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatalf("the server refused a history after a crash: %v", rej)
	}
	t.Logf("seed %d: %d runs killed with SIGKILL, %d complete messages reported, %d lost, %d requests, 0 refused", seed, runs, seen, lost, len(srv.Requests()))
}

func onDisk(msgs []session.Message, ev map[string]any) bool {
	for _, m := range msgs {
		switch ev["type"] {
		case "tool_result":
			if m.Role == session.RoleTool && m.ToolCallID == ev["id"] {
				return true
			}
		case "assistant":
			text, _ := ev["text"].(string)
			if m.Role == session.RoleAssistant && m.Content == text {
				return true
			}
		}
	}
	return false
}
