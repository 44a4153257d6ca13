package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// hermesCall is a call as Qwen3's chat template writes it (the template
// the recorded llama-server traffic comes from).
const hermesCall = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n</tool_call>"

// TestRescuedToolCallRuns: a model that writes its call as text (Hermes
// form) gets it run; the text is not shown; the next request carries the
// normal assistant-with-tool-calls form, which the strict server accepts;
// -v and --json say it happened.
func TestRescuedToolCallRuns(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"-v", "--json"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, oaitest.Answer{Text: "I will read it.\n" + hermesCall, Piece: 3}, oaitest.Answer{Text: "The notes say: buy milk."})
			cmd := command(t, srv, mode, "-p", "what do my notes say?")
			if err := os.WriteFile(filepath.Join(cmd.Dir, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, cmd)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if strings.Contains(out, "tool_call>") || !strings.Contains(out, "The notes say: buy milk.") {
				t.Errorf("stdout:\n%s", out)
			}
			if mode == "-v" && !strings.Contains(errOut, "wrote a tool call as text (hermes)") {
				t.Errorf("-v does not say it: %s", errOut)
			}
			if mode == "--json" && !strings.Contains(out, `{"type":"rescued","turn":1,"format":"hermes","calls":1}`) {
				t.Errorf("--json has no rescued event:\n%s", out)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			second := reqs[1]
			if !strings.HasSuffix(second.Shape(), "user assistant("+second.Messages[len(second.Messages)-2].ToolCalls[0].ID+") tool:"+second.Messages[len(second.Messages)-2].ToolCalls[0].ID) {
				t.Errorf("second request: %s", second.Shape())
			}
			if !strings.Contains(second.Messages[len(second.Messages)-1].Text(), "buy milk") {
				t.Errorf("the tool result: %s", second.Messages[len(second.Messages)-1].Text())
			}
			if rej := srv.Rejected(); len(rej) > 0 {
				t.Errorf("strict server refused: %v", rej)
			}
		})
	}
}

// TestTextThatIsNotACallStaysText: JSON in an answer, a call of a tool not
// offered, and any call when the model's config turns rescue off, are
// shown as written and run nothing.
func TestTextThatIsNotACallStaysText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, text, config string }{
		{"mentions json", `The file holds {"name": "read_file", "arguments": {"path": "x"}} among others.`, ""},
		{"unknown tool", `{"name": "format_disk", "arguments": {}}`, ""},
		{"invalid arguments", `{"name": "read_file", "arguments": {"file": "x"}}`, ""},
		{"turned off", hermesCall, "[models.scripted-model]\nrescue_tool_calls = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, oaitest.Answer{Text: tt.text})
			cmd := command(t, srv, "-p", "hi")
			if tt.config != "" {
				writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), tt.config)
			}
			out, errOut, code := run(t, cmd)
			if code != 0 || strings.TrimSpace(out) != tt.text || srv.RequestCount() != 1 {
				t.Errorf("exit %d, %d requests\nstdout: %q\nstderr: %s", code, srv.RequestCount(), out, errOut)
			}
		})
	}
}

// TestCutAnswerIsSaid: an answer cut by finish_reason "length" is said on
// stderr in print mode (it used to end silently, exit 0).
func TestCutAnswerIsSaid(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "Hello! I am", Finish: "length"})
	out, errOut, code := run(t, command(t, srv, "-p", "hi"))
	if code != 0 || !strings.Contains(out, "Hello! I am") || !strings.Contains(errOut, "cut off") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

// TestBigToolResultFitsTheRoomLeft: against a small local window the
// server says (llama-server's /props), a 16 KB file read late in a long
// turn is cut to the room the turn leaves, not sent to overflow.
func TestBigToolResultFitsTheRoomLeft(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(4096)
	srv.SayWindow()
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case len(req.Tools) == 0:
			return oaitest.Answer{Text: "a summary"}
		case last.Role == "tool":
			return oaitest.Answer{Text: "read it"}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "r1", Name: "read_file", Args: `{"path":"big.txt"}`}}}
	})
	cmd := command(t, srv, "-p", "summarize big.txt given this context: "+strings.Repeat("background words ", 450))
	if err := os.WriteFile(filepath.Join(cmd.Dir, "big.txt"), []byte(strings.Repeat("a line of the big file\n", 700)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, cmd)
	if code != 0 || !strings.Contains(out, "read it") || srv.Overflows() != 0 {
		t.Fatalf("exit %d, %d overflows\nstdout %s\nstderr %s", code, srv.Overflows(), out, errOut)
	}
	if asked := srv.Asides(); !slices.Contains(asked, "GET /props") {
		t.Fatalf("the tool result was fitted without asking the window: %v", asked)
	}
}

// TestOneLineAnswerAsksNothingElse: print mode asks a local server its
// window once, before the first request (which form of the tools that
// request offers depends on it), and a question answered in one request
// is the only chat request.
func TestOneLineAnswerAsksNothingElse(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "hello there"})
	srv.SetWindow(4096)
	srv.SayWindow()
	out, errOut, code := run(t, command(t, srv, "-p", "hello"))
	if code != 0 || out != "hello there\n" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	asked := srv.Asides()
	probes := map[string]int{}
	for _, a := range asked {
		probes[a]++
	}
	if srv.RequestCount() != 1 || len(asked) > 3 || probes["GET /props"] != 1 {
		t.Fatalf("%d chat requests, and also %v", srv.RequestCount(), asked)
	}
}

// TestTUIShowsTheWindowTheServerSays: the window a local server says is
// in the status bar from the start (the probe may answer before the
// program listens: it was lost 3 times in 8).
func TestTUIShowsTheWindowTheServerSays(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(6144)
	srv.SayWindow()
	tm := startTerm(t, srv)
	tm.waitFor("ctx 6.1k", 10*time.Second)
}

// TestTUIRescuedCallIsSaid: in the REPL a rescued call is said, and the
// text of the call is not shown as the answer.
func TestTUIRescuedCallIsSaid(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: hermesCall}, oaitest.Answer{Text: "the notes are read"})
	tm := startTermOpts(t, srv, termOpts{setup: func(dir string) { os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o600) }})
	tm.ask("read my notes")
	tm.waitFor("the notes are read", 10*time.Second)
	if screen := tm.screen(); !strings.Contains(screen, "as text (hermes)") || strings.Contains(screen, "<tool_call>") {
		t.Fatalf("the screen:\n%s", screen)
	}
}

// TestPermanentServerErrorIsNotRetried: llama-server without --jinja
// answers every request with tools a 500; chat says so at once (it
// retried three times as if the server were busy).
func TestPermanentServerErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply {
		return oaitest.Fail{Status: 500, Message: "tools param requires --jinja flag", Type: "server_error"}
	})
	_, errOut, code := run(t, command(t, srv, "-p", "hi"))
	if code != 1 || !strings.Contains(errOut, "--jinja") || strings.Contains(errOut, "retrying") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if n := srv.RequestCount(); n != 1 {
		t.Fatalf("%d requests for an error that does not pass", n)
	}
}

// TestInlineThinkingIsNotTheAnswer: a model whose server leaves
// <think>…</think> in the content (here before a call written as text)
// has it shown as thinking, never printed as the answer or sent back as
// what it said.
func TestInlineThinkingIsNotTheAnswer(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "<think>I should read the notes first.</think>\n" + hermesCall, Piece: 4},
		oaitest.Answer{Text: "<think>They say milk.</think>The notes say: buy milk."})
	cmd := command(t, srv, "-p", "what do my notes say?")
	if err := os.WriteFile(filepath.Join(cmd.Dir, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, cmd)
	if code != 0 || strings.Contains(out, "think>") || strings.Contains(out, "I should read") || strings.TrimSpace(out) != "The notes say: buy milk." {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, m := range srv.Requests()[1].Messages {
		if m.Role == "assistant" && strings.Contains(m.Text(), "think>") {
			t.Fatalf("the thinking was sent back as what the model said: %q", m.Text())
		}
	}
}

// TestVerboseTokenLineStandsAlone: with -v, stdout and stderr on one
// terminal, the token line is a line of its own (it was glued onto the
// answer's last line), and a local server's cost reads "local, free" (it
// read $0.000000).
func TestVerboseTokenLineStandsAlone(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "The answer, without a final newline."})
	cmd := command(t, srv, "-v", "-p", "hi")
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, both.String())
	}
	out := both.String()
	if !regexp.MustCompile(`(?m)^\[tokens main\] .* · local, free$`).MatchString(out) || strings.Contains(out, "$0.000000") {
		t.Fatalf("the token line:\n%s", out)
	}
}

// TestCutByTheWindowSaysSo: an answer cut because the request and the
// answer filled the context window says the window is full (it advised a
// larger max_tokens, which cannot help).
func TestCutByTheWindowSaysSo(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "The start of a long", Finish: "length", Usage: &oaitest.Usage{Prompt: 1950, Completion: 98, Total: 2048}})
	_, errOut, code := run(t, command(t, srv, "--context-window", "2048", "-p", "hi"))
	if code != 0 || !strings.Contains(errOut, "context window is full") || strings.Contains(errOut, "max_tokens") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}

// TestTUICutByTheWindowSaysSo: the REPL says the same.
func TestTUICutByTheWindowSaysSo(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "The start of a long", Finish: "length", Usage: &oaitest.Usage{Prompt: 1950, Completion: 98, Total: 2048}})
	tm := startTerm(t, srv, "--context-window", "2048")
	tm.ask("hi")
	if screen := tm.waitFor("cut off", 10*time.Second); !strings.Contains(screen, "context window is full") {
		t.Fatalf("the REPL blames the output limit:\n%s", screen)
	}
}

// TestOversizedResultIsCutByTheServersCount: a tool result fitted by
// chat's estimate (3.5 bytes a token) is still too large for a server
// whose tokenizer counts more; the overflow names the server's count, and
// the result is cut by it and the request retried until it fits (the
// turn was lost, exit 1).
func TestOversizedResultIsCutByTheServersCount(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(4096)
	srv.SayWindow()
	srv.SetBytesPerToken(2)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case len(req.Tools) == 0:
			return oaitest.Answer{Text: "a summary"}
		case last.Role == "tool":
			return oaitest.Answer{Text: "read it"}
		}
		return oaitest.Answer{Calls: []oaitest.Call{{ID: "r1", Name: "read_file", Args: `{"path":"big.txt"}`}}}
	})
	cmd := command(t, srv, "-p", "summarize big.txt")
	if err := os.WriteFile(filepath.Join(cmd.Dir, "big.txt"), []byte(strings.Repeat("1 2 3 4 5 6 7 8 9 10\n", 750)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, cmd)
	if code != 0 || !strings.Contains(out, "read it") {
		t.Fatalf("exit %d, %d overflows\nstdout %s\nstderr %s", code, srv.Overflows(), out, errOut)
	}
}
