package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// prefixSession runs a 20-turn session without compaction (tool calls
// every third turn, reasoning, text steered into a turn now and then)
// and returns the requests it sent.
func prefixSession(t testing.TB) []oaitest.Request {
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" && strings.Contains(last.Text(), "look") {
			return oaitest.Answer{Reasoning: "I should read it.", Calls: []oaitest.Call{{ID: fmt.Sprintf("c%d", req.Index), Name: "read_file", Args: `{"path":"notes.txt"}`}}}
		}
		return oaitest.Answer{Reasoning: "thinking", Text: fmt.Sprintf("Answer %d, in a few words.", req.Index)}
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("some notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := control.NewInterloper()
	a := agent.New(agent.Options{Client: llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-model"}), Session: session.New(),
		System: "You are a test.", Tools: tool.NewSet(tool.Builtins(tool.Workspace{Root: dir})...), Interloper: in})
	a.SetContextWindow(1 << 20)
	for i := 1; i <= 20; i++ {
		q := fmt.Sprintf("question %d", i)
		if i%3 == 0 {
			q += ", look at the notes"
			in.Push(fmt.Sprintf("and a word typed during turn %d", i))
		}
		if _, err := a.Run(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatal(rej)
	}
	return srv.Requests()
}

// TestRequestPrefixIsStable: each request repeats the one before it, byte
// for byte, up to its last message, so a provider's prompt cache hits.
func TestRequestPrefixIsStable(t *testing.T) {
	t.Parallel()
	reqs := prefixSession(t)
	for i := 1; i < len(reqs); i++ {
		if kept := oaitest.PrefixKept(reqs[i-1], reqs[i]); kept < 1 {
			end := oaitest.MessagesEnd(reqs[i-1])
			n := 0
			for n < end && reqs[i-1].Raw[n] == reqs[i].Raw[n] {
				n++
			}
			t.Fatalf("request %d keeps %.1f%% of request %d's prefix; they part at byte %d:\n%s\n---\n%s", i, kept*100, i-1, n,
				clipAround(reqs[i-1].Raw, n), clipAround(reqs[i].Raw, n))
		}
	}
}

func clipAround(b []byte, at int) string {
	return string(b[max(0, at-120):min(len(b), at+120)])
}

// BenchmarkPrefixStability reports the smallest share of a request's
// prefix (up to its last message) that the next request of a 20-turn
// session repeats: 100 means every request could hit a prompt cache.
func BenchmarkPrefixStability(b *testing.B) {
	worst := 1.0
	for b.Loop() {
		reqs := prefixSession(b)
		for i := 1; i < len(reqs); i++ {
			worst = min(worst, oaitest.PrefixKept(reqs[i-1], reqs[i]))
		}
	}
	b.ReportMetric(worst*100, "%prefix-kept-min")
	b.ReportMetric(0, "ns/op")
}
