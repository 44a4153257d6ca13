package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// TestTUINotifies: the terminal's raw output (tmux pipe-pane) carries the
// notification when a turn ends and when an approval waits, in the form
// asked for; once the terminal reports focus (DEC mode 1004's focus-in,
// sent as a terminal sends it) there is none.
func TestTUINotifies(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t,
		oaitest.Answer{Text: "The first answer."},
		oaitest.Answer{Calls: []oaitest.Call{{ID: "w", Name: "write_file", Args: `{"path":"a.txt","content":"x\n"}`}}},
		oaitest.Answer{Text: "Written."},
		oaitest.Answer{Text: "Seen while you looked."})
	tm := startTermConfig(t, srv, "", "[notify]\nmin_turn = \"1ns\"\nmethod = \"osc777\"\n")
	raw := filepath.Join(t.TempDir(), "raw")
	tm.tmux("pipe-pane", "-O", "-t", "main", "cat >> "+raw)
	rawHas := func(s string) bool {
		b, _ := os.ReadFile(raw)
		return strings.Contains(string(b), s)
	}
	waitRaw := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !rawHas(s); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(raw)
				t.Fatalf("no %q in the terminal's output; it ends:\n%q", s, b[max(0, len(b)-2000):])
			}
		}
	}
	tm.ask("first")
	tm.waitFor("The first answer.", time.Minute)
	waitRaw("\x1b]777;notify;chat;The first answer.\x07")
	tm.ask("write it")
	tm.waitFor("write_file", time.Minute)
	waitRaw("\x1b]777;notify;chat: your answer is wanted;create a.txt (1 line)\x07")
	tm.answer("y")
	tm.waitFor("Written.", time.Minute)
	waitRaw("\x1b]777;notify;chat;Written.\x07")
	// The terminal says it has focus: the person is looking.
	tm.tmux("send-keys", "-t", "main", "-H", "1b", "5b", "49")
	tm.ask("third")
	tm.waitFor("Seen while you looked.", time.Minute)
	tm.waitIdle(time.Minute)
	if rawHas("notify;chat;Seen while you looked.") {
		t.Fatal("a notification went out while the terminal reported focus")
	}
}
