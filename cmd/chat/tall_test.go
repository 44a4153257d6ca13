package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// tallAnswer is a Markdown answer of n lines: a heading, paragraphs and a
// list, so some blocks finish while others stream.
func tallAnswer(n int) string {
	var b strings.Builder
	b.WriteString("# Heading of the tall answer\n\n")
	for i := 1; i <= n; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&b, "Paragraph line %d ends a paragraph.\n\n", i)
		} else {
			fmt.Fprintf(&b, "- item %d of the list\n", i)
		}
	}
	b.WriteString("\n```go\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fmt.Println(%d) // a code block stays live until it closes\n", i)
	}
	b.WriteString("```\n\nLAST LINE OF THE ANSWER\n")
	return b.String()
}

// promptAndStatusIntact checks, once the screen settled, that the input
// prompt is on screen and the status bar is the last line.
func (tm *pane) promptAndStatusIntact(when string) {
	tm.t.Helper()
	// The turn ends first (no fixed pause: a loaded machine is slow, not
	// wrong); then the prompt and the status bar must be whole.
	tm.waitIdle(10 * time.Second)
	deadline := time.Now().Add(5 * time.Second * loadAllowance)
	for {
		visible := tm.tmux("capture-pane", "-p", "-t", "main")
		lines := strings.Split(strings.TrimRight(visible, "\n"), "\n")
		if strings.Contains(visible, "Ask anything") && strings.Contains(lines[len(lines)-1], "scripted-model") {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("%s, the prompt or the status bar is broken:\n%s", when, visible)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// TestTUITallAnswerKeepsTheScreen: an answer taller than the window, at
// 80×24 and 120×40, leaves the prompt and the status bar intact and no
// stale frame (the placeholder, "waiting for the model") in the
// scrollback.
func TestTUITallAnswerKeepsTheScreen(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, oaitest.Answer{Text: tallAnswer(60), Piece: 40, Delay: time.Millisecond},
				oaitest.Answer{Text: "second answer"}, oaitest.Answer{Text: "pasted answer"})
			tm := startTermOpts(t, srv, termOpts{width: size[0], height: size[1]})
			tm.ask("tell me a lot")
			tm.waitFor("LAST LINE OF THE ANSWER", 15*time.Second)
			tm.promptAndStatusIntact("after the answer")
			all := tm.screen()
			for _, stale := range []string{"waiting for the model", "streaming"} {
				if strings.Contains(all, stale) {
					t.Fatalf("a stale frame (%q) is in the scrollback:\n%s", stale, all)
				}
			}
			if n := strings.Count(all, "Ask anything"); n != 1 {
				t.Fatalf("the placeholder appears %d times:\n%s", n, all)
			}
			if n := strings.Count(all, "Heading of the tall answer"); n != 1 {
				t.Fatalf("the heading appears %d times:\n%s", n, all)
			}
			tm.ask("next")
			tm.waitFor("second answer", 10*time.Second)
			// A 2,000-line paste, echoed, then answered.
			var paste strings.Builder
			for i := 1; i <= 2000; i++ {
				fmt.Fprintf(&paste, "pasted line %d\n", i)
			}
			tm.paste(paste.String())
			tm.keys("Enter")
			tm.waitFor("pasted answer", 15*time.Second)
			tm.promptAndStatusIntact("after the paste")
			if all := tm.screen(); strings.Count(all, "Ask anything") != 1 || strings.Contains(all, "waiting for the model") {
				t.Fatalf("a stale frame after the paste:\n%s", all)
			}
		})
	}
}

// TestFailedQuestionDoesNotPoisonTheNext: after a turn that got no
// answer, the next message is sent alone (the server used to receive
// "first\n\nplain second"); in the REPL the failed text comes back to the
// input; in print mode --continue says so on stderr.
func TestFailedQuestionDoesNotPoisonTheNext(t *testing.T) {
	t.Parallel()
	t.Run("repl", func(t *testing.T) {
		t.Parallel()
		srv := oaitest.New(t, oaitest.Fail{Status: 400, Message: "context too long"}, oaitest.Answer{Text: "answer to the second"})
		tm := startTerm(t, srv)
		tm.ask("first question")
		tm.waitFor("context too long", 10*time.Second)
		tm.waitFor("back in the input", 5*time.Second)
		tm.keys("C-u") // clear the line the failed question came back to
		tm.keys("C-c")
		tm.ask("plain second")
		tm.waitFor("answer to the second", 10*time.Second)
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if got := last.Shape(); got != "system user" || last.Messages[1].Text() != "plain second" {
			t.Fatalf("the second request carried %s: %q", got, last.Messages[len(last.Messages)-1].Text())
		}
	})
	t.Run("print", func(t *testing.T) {
		t.Parallel()
		home, dir := t.TempDir(), t.TempDir()
		srv := oaitest.New(t, oaitest.Fail{Status: 400, Message: "image input is not supported"}, oaitest.Answer{Text: "fine now"})
		if _, errOut, code := run(t, inHome(t, command(t, srv, "-p", "first question"), home, dir)); code != 1 || !strings.Contains(errOut, "not supported") {
			t.Fatal(code, errOut)
		}
		out, errOut, code := run(t, inHome(t, command(t, srv, "--continue", "-p", "second question"), home, dir))
		if code != 0 || !strings.Contains(out, "fine now") || !strings.Contains(errOut, "got no answer") {
			t.Fatal(code, out, errOut)
		}
		last := srv.Requests()[1]
		if got := last.Shape(); got != "system user" || last.Messages[1].Text() != "second question" {
			t.Fatalf("--continue sent %s: %q", got, last.Messages[1].Text())
		}
		show, _, _ := run(t, inHome(t, command(t, srv, "sessions", "list"), home, dir))
		if !strings.Contains(show, "first question") {
			t.Fatalf("the failed question is not kept:\n%s", show)
		}
	})
}

// TestTUIFullscreenReachesTheTop: after eight exchanges in --fullscreen,
// PgUp shows the first message.
func TestTUIFullscreenReachesTheTop(t *testing.T) {
	t.Parallel()
	var answers []oaitest.Reply
	for i := 1; i <= 8; i++ {
		answers = append(answers, oaitest.Answer{Text: fmt.Sprintf("answer number %d\n\nwith a second paragraph", i)})
	}
	srv := oaitest.New(t, answers...)
	tm := startTermOpts(t, srv, termOpts{width: 80, height: 24}, "--fullscreen")
	for i := 1; i <= 8; i++ {
		tm.ask(fmt.Sprintf("question %d", i))
		tm.waitFor(fmt.Sprintf("answer number %d", i), 10*time.Second)
	}
	for range 10 {
		tm.keys("PageUp")
	}
	tm.waitFor("question 1\n", 5*time.Second)
}

// TestTUIResizeMidStream: the window shrinks while a tall answer streams;
// the prompt and the status bar survive and no stale frame is left. The
// stream is held while the window shrinks, once the first list is in the
// scrollback (its lines must not have been padded to the old width): left to
// run, a loaded machine could resize while the open code block filled the
// screen, and a terminal that shrinks pushes the top of any frame taller
// than its new height into its scrollback, where no program can erase it.
func TestTUIResizeMidStream(t *testing.T) {
	t.Parallel()
	const piece = 40
	text := tallAnswer(60)
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: text, Piece: piece, Delay: 4 * time.Millisecond,
		Gate: gate, GateAfter: strings.Index(text, "item 14 of the list") / piece})
	tm := startTermOpts(t, srv, termOpts{width: 120, height: 40})
	tm.ask("tell me a lot")
	select {
	case <-gate.Entered():
	case <-time.After(10 * time.Second * loadAllowance):
		t.Fatalf("the answer never reached the gate:\n%s", tm.screen())
	}
	tm.waitFor("item 12 of the list", 10*time.Second)
	tm.tmux("resize-window", "-t", "main", "-x", "80", "-y", "24")
	tm.waitFor("item 12 of the list", 10*time.Second)
	gate.Release()
	tm.waitFor("LAST LINE OF THE ANSWER", 15*time.Second)
	tm.promptAndStatusIntact("after the resize")
	all := tm.screen()
	if strings.Count(all, "Ask anything") != 1 || strings.Contains(all, "streaming") {
		t.Fatalf("a stale frame after the resize:\n%s", all)
	}
	// Lines padded to the old width were rewrapped into two rows each.
	if strings.Contains(all, "of the list\n\n  • item") {
		t.Fatalf("the narrowed answer is double-spaced:\n%s", all)
	}
}

// TestInputGrowthLeavesNoCopies: a 2,000-character burst typed at 80×24
// before the first turn, chat started on the first row (after clear),
// grows the input box to its full height; the scrollback holds no stale
// copies of it or of the status bar (there were 10).
func TestInputGrowthLeavesNoCopies(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	tm := startTermOpts(t, srv, termOpts{width: 80, height: 24, atTop: true})
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	var b strings.Builder
	for i := 0; b.Len() < 2000; i++ {
		b.WriteString(words[i*7%len(words)] + " ")
	}
	burst := strings.TrimSpace(b.String()) + " THE-END"
	tm.typeText(burst)
	screen := tm.waitFor("THE-END", 10*time.Second)
	if n := strings.Count(screen, "scripted-model ·"); n != 1 {
		t.Fatalf("%d copies of the status bar in the scrollback:\n%s", n, screen)
	}
}

// TestTUITallCodeBlockLosesNoLine: at 80×24 an open code block fills the
// frame; when it closes, the whole block is printed above a frame that
// is shrinking. Bubble Tea scrolls from the frame it drew last, so a
// batch sized by the new, smaller frame used to push the old frame's top
// into the scrollback and drop code lines (12 of 13 runs). Twenty runs:
// every line once, in order, and no stale copy.
func TestTUITallCodeBlockLosesNoLine(t *testing.T) {
	t.Parallel()
	var answer strings.Builder
	answer.WriteString("Here is the code:\n\n```go\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&answer, "fmt.Println(\"code line %02d\")\n", i)
	}
	answer.WriteString("```\n\nAFTER THE CODE\n")
	for run := 1; run <= 20; run++ {
		t.Run(fmt.Sprint(run), func(t *testing.T) {
			t.Parallel()
			srv := oaitest.New(t, oaitest.Answer{Text: answer.String(), Piece: 30, Delay: time.Millisecond})
			tm := startTermOpts(t, srv, termOpts{width: 80, height: 24})
			tm.ask("show me code")
			tm.waitFor("AFTER THE CODE", 15*time.Second*loadAllowance)
			tm.promptAndStatusIntact("after the code block")
			// The block reaches the scrollback once the frame above which it
			// is printed has been drawn smaller.
			var all string
			for deadline := time.Now().Add(10 * time.Second * loadAllowance); ; time.Sleep(20 * time.Millisecond) {
				all = tm.tmux("capture-pane", "-p", "-t", "main", "-S", "-", "-E", "-")
				if strings.Contains(all, "code line 40") && strings.Count(all, "AFTER THE CODE") == 1 || time.Now().After(deadline) {
					break
				}
			}
			last := -1
			for i := 1; i <= 40; i++ {
				line := fmt.Sprintf("code line %02d", i)
				if n := strings.Count(all, line); n != 1 {
					t.Fatalf("%q is in the scrollback %d times:\n%s", line, n, all)
				}
				at := strings.Index(all, line)
				if at < last {
					t.Fatalf("%q is out of order:\n%s", line, all)
				}
				last = at
			}
			if strings.Count(all, "Ask anything") != 1 || strings.Contains(all, "streaming") || strings.Contains(all, "waiting for the model") {
				t.Fatalf("a stale frame in the scrollback:\n%s", all)
			}
		})
	}
}
