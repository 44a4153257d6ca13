package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/oaitest"
)

// smallWindowModel calls run_shell once per question, then answers; a
// request without tools (a summary) gets a summary.
func smallWindowModel(req oaitest.Request) oaitest.Reply {
	last := req.Messages[len(req.Messages)-1]
	switch {
	case len(req.Tools) == 0:
		return oaitest.Answer{Text: "The user asked several times to run seq 1 40 and was told about the numbers each time."}
	case last.Role == "tool":
		return oaitest.Answer{Text: "The command printed the numbers one to forty, one per line; nothing failed, and there is nothing else to do."}
	}
	return oaitest.Answer{Calls: []oaitest.Call{shellCall(fmt.Sprintf("c%d", req.Index), "seq 1 40")}}
}

// TestTwentyTurnsAtEveryWindow: 20 print-mode turns with --continue, each
// with a tool call, against a server that counts like llama.cpp and
// refuses (400) past its window and says its window in /props: every turn
// is answered and nothing is refused, at 2,048, 4,096 and 32k tokens. The
// tools are offered whole where there is room, in their short form at
// 2,048 (where the whole set took most of the window).
func TestTwentyTurnsAtEveryWindow(t *testing.T) {
	t.Parallel()
	eachWindow(t, func(t *testing.T, srv *oaitest.Server, window int) {
		dir, home := t.TempDir(), t.TempDir()
		for i := 1; i <= 20; i++ {
			args := []string{"-p", fmt.Sprintf("turn %d: please run the numbers and tell me about them", i)}
			if i > 1 {
				args = append([]string{"--continue"}, args...)
			}
			cmd := command(t, srv, args...)
			cmd.Dir, cmd.Env[0], cmd.Env[1] = dir, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config")
			stdout, stderr, code := run(t, cmd)
			if code != 0 || !strings.Contains(stdout, "one to forty") {
				t.Fatalf("turn %d: exit %d\n%s\n%s", i, code, stdout, stderr)
			}
		}
		if n := srv.Overflows(); n > 0 {
			t.Errorf("%d requests were refused for their size", n)
		}
		tools := len(srv.Requests()[0].Tools)
		if window == 2048 && tools != 8 || window > 2048 && tools != 10 {
			t.Errorf("%d tools offered at %d", tools, window)
		}
	})
}

// TestFixedPromptSize pins what every request carries before the person
// says anything (the system prompt and the tools), as the server counts
// it: growth is a decision, not an accident. At 2,048 the first request is
// at most 40 % of the window.
func TestFixedPromptSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		window, most int // the first request's tokens (4 bytes each), at most
	}{{2048, 760}, {0, 1650}} {
		srv := oaitest.New(t, oaitest.Answer{Text: "hi"})
		args := []string{"-p", "hello"}
		if c.window > 0 {
			args = append([]string{"--context-window", fmt.Sprint(c.window)}, args...)
		}
		cmd := command(t, srv, args...)
		if _, stderr, code := run(t, cmd); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		r := srv.Requests()[0]
		t.Logf("window %d: the first request is %d bytes (~%d tokens), %d tools", c.window, len(r.Raw), r.Tokens, len(r.Tools))
		if r.Tokens > c.most {
			t.Errorf("window %d: the first request is ~%d tokens, more than %d", c.window, r.Tokens, c.most)
		}
	}
}

// TestPrintModeCompactsAndNeverAnswersEmpty: `chat --continue -p
// /compact` compacts the session (it was sent to the model as a message);
// an empty reply exits 4 with the reason on stderr (it was 0, printing
// nothing).
func TestPrintModeCompactsAndNeverAnswersEmpty(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		if len(req.Tools) == 0 {
			return oaitest.Answer{Text: "The user said hello twice."}
		}
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "silence") {
			return oaitest.Answer{Text: ""}
		}
		return oaitest.Answer{Text: "hello to you"}
	})
	dir, home := t.TempDir(), t.TempDir()
	chat := func(args ...string) (string, string, int) {
		cmd := command(t, srv, args...)
		cmd.Dir, cmd.Env[0], cmd.Env[1] = dir, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config")
		return run(t, cmd)
	}
	for _, p := range []string{"hello", "hello again"} {
		if _, stderr, code := chat("--continue", "-p", p); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	before := len(srv.Requests())
	_, stderr, code := chat("--continue", "-p", "/compact keep the greetings")
	if code != 0 || !strings.Contains(stderr, "compacted") {
		t.Fatalf("/compact: exit %d\n%s", code, stderr)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 1 || len(reqs[0].Tools) != 0 || !strings.Contains(string(reqs[0].Raw), "keep the greetings") {
		t.Errorf("/compact did not summarize (it went to the model as a message?): %d requests", len(reqs))
	}
	stdout, stderr, code := chat("--continue", "-p", "silence please")
	if code != 4 || strings.TrimSpace(stdout) != "" || !strings.Contains(stderr, "the model gave no answer") {
		t.Errorf("an empty reply: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// TestPlanModeAnswersAtTheSmallestWindow: --plan -p answers at 2,048 (the
// whole tool set and plan mode's prompt left the answer no room: stdout
// empty, exit 0).
func TestPlanModeAnswersAtTheSmallestWindow(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(2048)
	srv.SayWindow()
	srv.SetFallback(smallWindowModel)
	stdout, stderr, code := run(t, command(t, srv, "--plan", "-p", "plan how to print the numbers"))
	if code != 0 || !strings.Contains(stdout, "one to forty") || srv.Overflows() > 0 {
		t.Fatalf("exit %d, %d refused\n%s\n%s", code, srv.Overflows(), stdout, stderr)
	}
}

// TestACPTwentyPromptsAtEveryWindow: 20 prompts from an editor, each with
// a tool call, at 2,048, 4,096 and 32k: every one answered, none refused.
func TestACPTwentyPromptsAtEveryWindow(t *testing.T) {
	t.Parallel()
	eachWindow(t, acpTwentyPrompts)
}

// eachWindow runs f as a parallel subtest against a strict server at
// 2,048, 4,096 and 32k tokens that says its window and plays
// smallWindowModel.
func eachWindow(t *testing.T, f func(t *testing.T, srv *oaitest.Server, window int)) {
	for _, window := range []int{2048, 4096, 32768} {
		t.Run(fmt.Sprint(window), func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t)
			srv.SetWindow(window)
			srv.SayWindow()
			srv.SetFallback(smallWindowModel)
			f(t, srv, window)
		})
	}
}

func acpTwentyPrompts(t *testing.T, srv *oaitest.Server, _ int) {
	cmd := command(t, srv, "acp")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	for i := 1; i <= 20; i++ {
		from := e.count()
		resp, err := e.prompt(ctx, id, acp.TextBlock(fmt.Sprintf("turn %d: please run the numbers and tell me about them", i)))
		if err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.Contains(e.text(from), "one to forty") {
			t.Fatalf("prompt %d: %+v %v %q", i, resp, err, e.text(from))
		}
	}
	if n := srv.Overflows(); n > 0 {
		t.Errorf("%d requests were refused for their size", n)
	}
}

// TestREPLTwentyTurnsAtEveryWindow: 20 REPL turns typed in a terminal,
// each with a tool call, at 2,048, 4,096 and 32k: every one answered, none
// refused, no error on screen (the REPL compacted only after the server
// refused, and was stuck until /compact by hand).
func TestREPLTwentyTurnsAtEveryWindow(t *testing.T) {
	t.Parallel()
	eachWindow(t, replTwentyTurns)
}

func replTwentyTurns(t *testing.T, srv *oaitest.Server, _ int) {
	tm := startTerm(t, srv)
	answered := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if len(r.Tools) > 0 && r.Messages[len(r.Messages)-1].Role == "tool" {
				n++
			}
		}
		return n
	}
	for i := 1; i <= 20; i++ {
		tm.ask(fmt.Sprintf("turn %d: please run the numbers and tell me about them", i))
		for deadline := time.Now().Add(time.Minute * loadAllowance); answered() < i; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("turn %d was not answered; the screen:\n%s", i, tm.screen())
			}
		}
		tm.waitIdle(30 * time.Second)
	}
	if n := srv.Overflows(); n > 0 {
		t.Errorf("%d requests were refused for their size", n)
	}
	if scr := tm.screen(); strings.Contains(scr, "✗") || strings.Contains(scr, "error") {
		t.Errorf("an error on screen:\n%s", scr)
	}
}

// TestLengthSaysWhichLimit: an answer cut at finish_reason "length" in
// one request says the context window cut it when the request and the
// answer filled it (it advised a larger max_tokens), and the output limit
// when they did not.
func TestLengthSaysWhichLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		total int
		want  string
	}{{2040, "the context window is full"}, {900, "its output limit"}} {
		srv := oaitest.New(t, oaitest.Answer{Text: "1 2 3 4 5 6 7", Finish: "length", Usage: &oaitest.Usage{Prompt: 700, Completion: c.total - 700, Total: c.total}})
		srv.SetWindow(2048)
		srv.SayWindow()
		_, stderr, _ := run(t, command(t, srv, "-p", "count forever"))
		if !strings.Contains(stderr, c.want) {
			t.Errorf("total %d: stderr does not say %q:\n%s", c.total, c.want, stderr)
		}
	}
}

// TestTooSmallIsSaidBeforeSending: when even what every request carries
// does not fit a window the server said, nothing is sent (a 400 was the
// way chat found out) and the person is told why and what to do.
func TestTooSmallIsSaidBeforeSending(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "unreachable"})
	srv.SetWindow(300)
	srv.SayWindow()
	_, stderr, code := run(t, command(t, srv, "-p", "hello"))
	if code != 1 || !strings.Contains(stderr, "was not sent") || !strings.Contains(stderr, "larger window") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if srv.RequestCount() != 0 || srv.Overflows() != 0 {
		t.Errorf("%d requests sent, %d refused", srv.RequestCount(), srv.Overflows())
	}
}

// TestDryRunShowsTheBudget: --dry-run says what the request would carry
// against the window the server said, by part, and sends nothing.
func TestDryRunShowsTheBudget(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "unreachable"})
	srv.SetWindow(2048)
	srv.SayWindow()
	stdout, stderr, code := run(t, command(t, srv, "--dry-run", "-p", "hello there"))
	if code != 0 || srv.RequestCount() != 0 {
		t.Fatalf("exit %d, %d requests:\n%s", code, srv.RequestCount(), stderr)
	}
	for _, want := range []string{"of 2048 tokens", "system", "8 of 10 tools, in their short form", "this prompt", "nothing was sent"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
}
