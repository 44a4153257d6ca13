package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// fixture is a model wired to an agent whose controls the test can see.
// No command is run unless the test runs it: Update is tested alone.
type fixture struct {
	m      *Model
	app    *testApp
	cancel *control.Cancellable
	in     *control.Interloper
	clock  time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{cancel: control.NewCancellable(), in: control.NewInterloper(), clock: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	a := agent.New(agent.Options{
		Client:    llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "test-model"}),
		StepLimit: control.NewStepLimit(16), Cancellable: f.cancel, Interloper: f.in,
	})
	dark := true
	f.app = &testApp{Agent: a, in: f.in}
	f.m = New(Options{App: f.app, NoColor: true, Dark: &dark, Now: func() time.Time { return f.clock }})
	// Keep every printed block in the outbox, in order, as the terminal
	// would have received them: a print is always "in flight".
	f.m.printing = true
	f.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return f
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	if c, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

func (f *fixture) send(msgs ...tea.Msg) tea.Cmd {
	var last tea.Cmd
	for _, msg := range msgs {
		_, last = f.m.Update(msg)
	}
	return last
}

func (f *fixture) typeText(s string) {
	for _, r := range s {
		f.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// busy starts a turn without running it: the model is as during a stream.
// exchanges puts answered questions (question, answer, question, …) into
// the session, as if they had been asked.
func (f *fixture) exchanges(texts ...string) *session.Session {
	s := f.m.app.Session()
	for i := 0; i+1 < len(texts); i += 2 {
		s.AppendInput(session.User(texts[i]))
		s.Append(session.Assistant(texts[i+1]))
	}
	return s
}

// busyFixture is a fixture in the middle of a turn that asked text.
func busyFixture(t *testing.T, text string) *fixture {
	f := newFixture(t)
	f.busy(text)
	return f
}

// submit types a line and presses Enter.
func (f *fixture) submit(s string) tea.Cmd {
	f.typeText(s)
	return f.send(press("enter"))
}

func (f *fixture) busy(text string) {
	f.submit(text)
	if !f.m.busy {
		panic("not busy after enter")
	}
}

func (f *fixture) event(e listener.Event) { f.send(agentEventMsg{ev: e}) }

func (f *fixture) printed() string { return ansi.Strip(strings.Join(f.m.outbox, "\n")) }

// isQuit runs cmd (and what it batches) and reports whether it quits.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

func TestCtrlC(t *testing.T) {
	t.Parallel()
	t.Run("during a turn it cancels at once", func(t *testing.T) {
		f := newFixture(t)
		f.busy("tell me")
		f.event(listener.AssistantDelta{Origin: listener.Origin{Turn: 1}, Text: "partial ans"})
		if isQuit(f.send(press("ctrl+c"))) {
			t.Fatal("ctrl+c quit during a turn")
		}
		if !f.cancel.Cancelled() || f.m.busy {
			t.Fatal("turn not cancelled")
		}
		if got := f.printed(); !strings.Contains(got, "partial ans") || !strings.Contains(got, "⏹ cancelled") {
			t.Fatalf("printed %q", got)
		}
		// A late delta of the cancelled turn is ignored.
		f.event(listener.AssistantDelta{Origin: listener.Origin{Turn: 1}, Text: "LATE"})
		f.send(turnDoneMsg{turn: 1, err: &control.CancelledError{}})
		if strings.Contains(f.m.View().Content, "LATE") || strings.Contains(f.printed(), "LATE") {
			t.Fatal("late event of a cancelled turn shown")
		}
	})
	t.Run("idle with text clears it", func(t *testing.T) {
		f := newFixture(t)
		f.typeText("draft")
		if isQuit(f.send(press("ctrl+c"))) || !f.m.input.empty() {
			t.Fatal("did not clear")
		}
	})
	t.Run("idle and empty: twice within 2s quits", func(t *testing.T) {
		f := newFixture(t)
		f.send(press("ctrl+c")) // returns the 2s disarm timer: not run here
		if f.m.quitArm.IsZero() {
			t.Fatal("first ctrl+c did not arm the quit")
		}
		if !strings.Contains(f.m.View().Content, "press ctrl+c again to quit") {
			t.Fatal("no hint")
		}
		f.clock = f.clock.Add(1500 * time.Millisecond)
		if !isQuit(f.send(press("ctrl+c"))) {
			t.Fatal("second ctrl+c did not quit")
		}
	})
	t.Run("idle and empty: too slow does not quit", func(t *testing.T) {
		f := newFixture(t)
		f.send(press("ctrl+c"))
		armed := f.m.quitArm
		f.clock = f.clock.Add(2500 * time.Millisecond)
		f.send(quitDisarmMsg{armed: armed})
		f.send(press("ctrl+c"))
		if !f.m.quitArm.Equal(f.clock) { // armed again rather than quitting
			t.Fatal("quit after the window")
		}
	})
}

func TestEscAndCtrlD(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.send(press("esc"))
	if f.cancel.Cancelled() {
		t.Fatal("esc at idle cancelled something")
	}
	f.busy("q")
	if isQuit(f.send(press("ctrl+d"))) {
		t.Fatal("ctrl+d quit mid-turn")
	}
	f.send(press("esc"))
	if !f.cancel.Cancelled() || f.m.busy {
		t.Fatal("esc did not cancel")
	}
	if !isQuit(f.send(press("ctrl+d"))) {
		t.Fatal("ctrl+d on an empty idle input did not quit")
	}
}

func TestMidTurnInput(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "first question")
	f.submit("look at the tests too")
	f.typeText("then summarize")
	f.send(press("tab"))
	if len(f.m.loop.Pending()) != 2 || !f.m.loop.Pending()[0].Inject || f.m.loop.Pending()[1].Inject {
		t.Fatalf("pending %+v", f.m.loop.Pending())
	}
	if f.in.Len() != 1 {
		t.Fatalf("interloper holds %d items, want the inject one only", f.in.Len())
	}
	view := ansi.Strip(f.m.View().Content)
	if !strings.Contains(view, "inject     look at the tests too") || !strings.Contains(view, "after turn then summarize") {
		t.Fatalf("pending list not shown:\n%s", view)
	}
	// The agent takes the inject item: it becomes a mid-turn user message.
	taken := f.in.Drain()
	f.event(listener.UserTurn{Origin: listener.Origin{Turn: 1}, Content: "look at the tests too", MidLoop: true, Input: taken[0].ID})
	if len(f.m.loop.Pending()) != 1 || !strings.Contains(f.printed(), "↳ look at the tests too") {
		t.Fatalf("delivery: pending %+v printed %q", f.m.loop.Pending(), f.printed())
	}
	// The turn ends: the after-turn item starts the next turn.
	cmd := f.send(turnDoneMsg{turn: 1})
	if cmd == nil || !f.m.busy || f.m.turn != 2 || !strings.Contains(f.printed(), "› then summarize") || len(f.m.loop.Pending()) != 0 {
		t.Fatalf("next turn not started: busy %v turn %d printed %q", f.m.busy, f.m.turn, f.printed())
	}
}

func TestRecallAndDeletePending(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	f.submit("one")
	f.submit("two")
	f.send(press("up"))
	if f.m.input.value() != "two" || f.in.Len() != 1 || len(f.m.loop.Pending()) != 1 {
		t.Fatalf("recall: input %q interloper %d pending %d", f.m.input.value(), f.in.Len(), len(f.m.loop.Pending()))
	}
	f.send(press("ctrl+c")) // cancels the turn: "one" comes back, after the draft
	if f.in.Len() != 0 || !strings.Contains(f.m.input.value(), "one") || !strings.Contains(f.m.input.value(), "two") {
		t.Fatalf("after cancel: input %q interloper %d", f.m.input.value(), f.in.Len())
	}
	g := newFixture(t)
	g.busy("q")
	g.typeText("drop me")
	g.send(press("enter"))
	g.send(press("ctrl+x"))
	if len(g.m.loop.Pending()) != 0 || g.in.Len() != 0 || !g.m.input.empty() {
		t.Fatal("ctrl+x did not delete the queued item")
	}
}

func TestPaste(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	big := strings.Repeat("line of pasted text\n", 239) + "last line"
	f.send(tea.PasteMsg{Content: "short\r\npaste"})
	f.send(tea.PasteMsg{Content: big})
	if len(f.m.loop.Pending()) != 0 {
		t.Fatal("a paste submitted")
	}
	if v := f.m.input.value(); !strings.Contains(v, "short\npaste") || !strings.Contains(v, "[pasted 240 lines #1]") {
		t.Fatalf("input %q", v)
	}
	f.send(press("enter"))
	if got := f.m.loop.Pending()[0].Text; !strings.HasSuffix(got, big) {
		t.Fatalf("the paste was not sent whole: %d bytes", len(got))
	}
}

func TestResizeRewraps(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	f.event(listener.AssistantDelta{Origin: listener.Origin{Turn: 1}, Text: strings.Repeat("wide 世界 🙂 text ", 30)})
	f.send(tea.WindowSizeMsg{Width: 40, Height: 20})
	for _, line := range strings.Split(ansi.Strip(f.m.View().Content), "\n") {
		if w := ansi.StringWidth(line); w > 40 {
			t.Fatalf("line of %d cells at width 40: %q", w, line)
		}
	}
}

func TestEscapeSequencesAreInert(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	f.event(listener.AssistantDelta{Origin: listener.Origin{Turn: 1}, Text: "a\x1b]0;pwned\x07b\x1b[2Jc\n\n"})
	f.event(listener.ToolResult{Origin: listener.Origin{Turn: 1}, Name: "t", Content: "x\x1b]52;c;AAAA\x07"})
	f.m.details = true
	f.event(listener.ToolResult{Origin: listener.Origin{Turn: 1}, Name: "t", Content: "y\x1b[H\x1b[2J"})
	out := strings.Join(f.m.outbox, "\n") + f.m.View().Content
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "\x1b]52", "\x07", "\x1b[H"} {
		if strings.Contains(out, bad) {
			t.Fatalf("%q reached the terminal", bad)
		}
	}
	if !strings.Contains(ansi.Strip(out), "␛]0;pwned␇") {
		t.Fatalf("the sequence is not shown visibly: %q", ansi.Strip(out))
	}
}

// TestExtensionTextIsInert: what MCP servers, skills and sub-agents bring
// (tool names and descriptions, server errors, skill texts, a sub-agent's
// answer) reaches the screen with its escape sequences made visible.
func TestExtensionTextIsInert(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	evil := "\x1b]0;pwned\x07\x1b[2J"
	f.app.tools = []ToolState{{Name: "srv__x" + evil, State: "asks", Description: "desc" + evil}}
	f.app.mcp = []MCPState{{Name: "srv", Transport: "http: x" + evil, Status: "failed: " + evil, Tools: []string{"srv__x" + evil}}}
	f.app.skills = []tool.Skill{{Name: "s" + evil, Description: "d" + evil, Dir: "/x" + evil}}
	for _, c := range []string{"/tools", "/mcp", "/skills"} {
		f.submit(c)
	}
	f.busy("q")
	o := listener.Origin{Agent: "researcher 0", Turn: f.m.turn}
	f.event(listener.UserTurn{Origin: o, Content: "task" + evil})
	f.event(listener.Assistant{Origin: o, Text: "answer" + evil})
	out := strings.Join(f.m.outbox, "\n") + f.m.View().Content
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "\x07"} {
		if strings.Contains(out, bad) {
			t.Fatalf("%q reached the terminal", bad)
		}
	}
	if strings.Count(ansi.Strip(out), "␛]0;pwned␇") < 7 {
		t.Fatalf("the sequences are not shown visibly:\n%s", ansi.Strip(out))
	}
}

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.typeText("/ste")
	if !strings.Contains(ansi.Strip(f.m.View().Content), "/steps") {
		t.Fatal("no completion shown")
	}
	f.send(press("tab"))
	if f.m.input.value() != "/steps " {
		t.Fatalf("completion %q", f.m.input.value())
	}
	f.submit("3")
	if f.m.app.StepLimit().Max() != 3 || f.m.busy {
		t.Fatal("/steps 3")
	}
	f.submit("/model other-model")
	if f.m.app.Model() != "other-model" {
		t.Fatal("/model")
	}
	f.submit("/usr/bin is where?")
	if !f.m.busy {
		t.Fatal("a path was taken for a command")
	}
	f.send(press("esc"))
	f.submit("/nope")
	if !strings.Contains(f.m.notice, "unknown command") {
		t.Fatal(f.m.notice)
	}
	f.typeText("/quit")
	if !isQuit(f.send(press("enter"))) {
		t.Fatal("/quit")
	}
}

func TestErrorsAndNotices(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	o := listener.Origin{Turn: 1}
	f.event(listener.Retry{Origin: o, Attempt: 1, Wait: 2 * time.Second, Err: errors.New("429 from x")})
	if !strings.Contains(f.m.View().Content, "retrying in 2s") {
		t.Fatal("retry state not in the status bar")
	}
	f.event(listener.FallbackNotice{Origin: o, Reason: "the agent used its 16 steps"})
	f.event(listener.AssistantDelta{Origin: listener.Origin{Agent: "synthesizer", Turn: 1}, Text: "best answer"})
	f.event(listener.Assistant{Origin: listener.Origin{Agent: "synthesizer", Turn: 1}, Text: "best answer", Synthesized: true})
	f.event(listener.Error{Origin: o, Err: errors.New("boom")})
	got := f.printed()
	for _, want := range []string{"↻ attempt 1 failed", "⚠ the agent used its 16 steps", "◆ synthesized answer", "best answer", "✗ boom"} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in %q", want, got)
		}
	}
}

func TestPrintsInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.printing = false
	f.busy("q")
	first := f.m.flush() // the user block is in flight
	f.event(listener.ToolCall{Origin: listener.Origin{Turn: 1}, Name: "read_file", Arguments: "{}"})
	if first != nil || len(f.m.outbox) == 0 {
		t.Fatal("a second print started while one was in flight")
	}
	f.send(printedMsg{})
	if len(f.m.outbox) != 0 || !f.m.printing {
		t.Fatal("the waiting block was not printed after the first")
	}
}

func TestStatusBar(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	o := listener.Origin{Turn: 1}
	f.app.SetContextWindow(128000)
	f.event(listener.Usage{Origin: o, Prompt: 1500, Completion: 500, Total: 2000})
	f.event(listener.Usage{Origin: o, Prompt: 2500, Completion: 100, Total: 2600})
	f.event(listener.ToolCall{Origin: o, Name: "grep"})
	f.clock = f.clock.Add(3200 * time.Millisecond)
	got := ansi.Strip(f.m.statusView())
	for _, want := range []string{"test-model", "steps 1/16", "↑4.0k ↓600", "ctx 2.6k/128k", "running grep 3.2s"} {
		if !strings.Contains(got, want) {
			t.Fatalf("status %q lacks %q", got, want)
		}
	}
}

// TestContextStatusAndCompaction: the status bar shows how full the window
// is; a compaction is announced with its sizes and the status follows it.
func TestContextStatusAndCompaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.app.SetContextWindow(10000) // not tied to a turn: the status bar reads the agent
	f.busy("q")
	o := listener.Origin{Turn: 1}
	f.event(listener.Usage{Origin: o, Prompt: 8400, Completion: 100})
	if !strings.Contains(ansi.Strip(f.m.statusView()), "ctx 8.5k/10k") {
		t.Fatal(f.m.statusView())
	}
	f.event(listener.Compacting{Origin: o})
	if !strings.Contains(ansi.Strip(f.m.View().Content), "compacting") {
		t.Fatal(f.m.View().Content)
	}
	f.event(listener.Compacted{Origin: o, Messages: 12, Before: 8500, After: 2100, Folded: 7000, Summary: 600})
	if !strings.Contains(strings.Join(strings.Fields(f.printed()), " "), "compacted 12 earlier messages (~7000 tokens) into a summary (~600) · the next request ~2100") {
		t.Fatalf("printed %q", f.printed())
	}
	if !strings.Contains(ansi.Strip(f.m.statusView()), "ctx 2.1k/10k") {
		t.Fatal(f.m.statusView())
	}
}

// TestQueuedItemsAreSeparateTurns: items queued with Tab are sent one
// turn each, as the pending list shows them.
func TestQueuedItemsAreSeparateTurns(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "first")
	for _, s := range []string{"second", "third"} {
		f.typeText(s)
		f.send(press("tab"))
	}
	f.send(turnDoneMsg{turn: 1})
	if f.m.lastUser != "second" || len(f.m.loop.Pending()) != 1 || f.m.loop.Pending()[0].Text != "third" {
		t.Fatalf("after turn 1: sent %q, pending %+v", f.m.lastUser, f.m.loop.Pending())
	}
	f.send(turnDoneMsg{turn: 2})
	if f.m.lastUser != "third" || len(f.m.loop.Pending()) != 0 || f.m.turn != 3 {
		t.Fatalf("after turn 2: sent %q, pending %+v", f.m.lastUser, f.m.loop.Pending())
	}
}

// TestRetriesAreOneLine: a turn that fails after six attempts leaves one
// retry line (the last), not one per attempt; while it retries, the line
// is in the live region.
func TestRetriesAreOneLine(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	o := listener.Origin{Turn: 1}
	for i := 1; i <= 6; i++ {
		f.event(listener.Retry{Origin: o, Attempt: i, Wait: time.Second, Err: errors.New("503 from x")})
	}
	if view := f.m.View().Content; !strings.Contains(view, "attempt 6 failed") {
		t.Fatalf("the retry is not shown while it waits:\n%s", view)
	}
	f.event(listener.Error{Origin: o, Err: errors.New("503 from x")})
	got := f.printed()
	if n := strings.Count(got, "↻ attempt"); n != 1 || !strings.Contains(got, "attempt 6 failed") {
		t.Fatalf("%d retry lines:\n%s", n, got)
	}
}

// TestUserMessagesWrapAtWords: a long question is wrapped at word
// boundaries, its continuation lines indented under the text, none wider
// than the terminal.
func TestUserMessagesWrapAtWords(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.m.width = 40
	block := ansi.Strip(f.m.blocks().user("please refactor the configuration loader so that environment variables win", false))
	lines := strings.Split(block, "\n")
	if len(lines) < 2 {
		t.Fatalf("not wrapped: %q", block)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > 40 {
			t.Fatalf("line %d is %d wide: %q", i, ansi.StringWidth(l), l)
		}
		if i > 0 && !strings.HasPrefix(l, "  ") {
			t.Fatalf("continuation not indented: %q", l)
		}
	}
	for _, word := range strings.Fields("please refactor the configuration loader so that environment variables win") {
		if !strings.Contains(block, word) {
			t.Fatalf("%q was cut mid-word:\n%s", word, block)
		}
	}
}

// TestCtrlOExpandsWhatWasJustCollapsed: ctrl+o after a collapsed tool
// result prints that result in full, not only what comes after.
func TestCtrlOExpandsWhatWasJustCollapsed(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "q")
	o := listener.Origin{Turn: 1}
	f.event(listener.ToolCall{Origin: o, ID: "c1", Name: "run_shell", Arguments: `{"command":"ls"}`})
	f.event(listener.ToolResult{Origin: o, ID: "c1", Name: "run_shell", Content: "alpha.go\nbeta.go\ngamma.go\n"})
	if got := f.printed(); strings.Contains(got, "beta.go") {
		t.Fatalf("printed in full before ctrl+o:\n%s", got)
	}
	f.send(press("ctrl+o"))
	if got := f.printed(); !strings.Contains(got, "beta.go") || !strings.Contains(got, "gamma.go") {
		t.Fatalf("ctrl+o did not show the collapsed output:\n%s", got)
	}
}

// TestFailedQuestionIsNotGlued: the question a failed turn gives back to
// the input ends with a space, so what is typed next is a new word.
func TestFailedQuestionIsNotGlued(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "why does it fail")
	q := session.User("why does it fail")
	q.Unanswered = true
	f.send(turnDoneMsg{turn: f.m.turn, err: errors.New("400 from x"), res: agent.Result{Unanswered: []session.Message{q}}})
	f.typeText("now")
	if got := f.m.input.value(); got != "why does it fail now" {
		t.Fatalf("input %q", got)
	}
}

// TestPendingItemsHaveIdentities: two equal texts typed during a turn are
// two items; the one the agent took is the one that leaves the list (they
// were matched by text), and the other comes back after a cancel.
func TestPendingItemsHaveIdentities(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "first question")
	f.submit("yes")
	f.submit("yes")
	if len(f.m.loop.Pending()) != 2 || f.m.loop.Pending()[0].Input == f.m.loop.Pending()[1].Input {
		t.Fatalf("pending %+v", f.m.loop.Pending())
	}
	second := f.m.loop.Pending()[1].Input
	if !f.in.Retract(second) { // as if the agent took the second
		t.Fatal("not queued")
	}
	f.event(listener.UserTurn{Origin: listener.Origin{Turn: 1}, Content: "yes", MidLoop: true, Input: second})
	if len(f.m.loop.Pending()) != 1 || f.m.loop.Pending()[0].Input == second {
		t.Fatalf("the wrong item left: %+v", f.m.loop.Pending())
	}
	f.send(press("ctrl+c"))
	if got := f.m.input.value(); got != "yes" {
		t.Fatalf("after the cancel the input holds %q", got)
	}
}

// TestPlanUpdatesInPlace: the task list is redrawn in place as the agent
// updates it (no transcript line per update), a sub-agent's list is not
// the session's, and the list as the turn left it is printed once when
// the turn ends.
func TestPlanUpdatesInPlace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.busy("do three things")
	o := listener.Origin{Turn: f.m.turn}
	step := func(statuses ...string) []listener.PlanStep {
		var out []listener.PlanStep
		for i, s := range statuses {
			out = append(out, listener.PlanStep{Step: fmt.Sprintf("thing %d", i+1), Status: s})
		}
		return out
	}
	before := f.printed()
	f.event(listener.Plan{Origin: o, Steps: step("in_progress", "pending", "pending")})
	f.event(listener.Plan{Origin: o, Steps: step("completed", "in_progress", "pending")})
	f.event(listener.Plan{Origin: listener.Origin{Agent: "helper 0", Turn: o.Turn}, Steps: step("pending")})
	if f.printed() != before {
		t.Fatalf("an update printed a line:\n%s", f.printed())
	}
	view := ansi.Strip(f.m.View().Content)
	if !strings.Contains(view, "plan · 1 of 3 done") || !strings.Contains(view, "▸ thing 2") || strings.Count(view, "thing 1") != 1 {
		t.Fatalf("live:\n%s", view)
	}
	f.send(turnDoneMsg{turn: o.Turn})
	if got := f.printed(); strings.Count(got, "plan · 1 of 3 done") != 1 || !strings.Contains(got, "✔ thing 1") {
		t.Fatalf("printed at the end:\n%s", got)
	}
	if strings.Contains(ansi.Strip(f.m.View().Content), "plan ·") {
		t.Fatal("the list stays live after the turn")
	}
	f.busy("next")
	f.send(turnDoneMsg{turn: f.m.turn})
	if got := f.printed(); strings.Count(got, "plan · 1 of 3 done") != 1 {
		t.Fatalf("a turn that did not change the list printed it again:\n%s", got)
	}
}

// TestResumedSessionShowsItsPlan: a session resumed with steps of its
// task list left shows the list where it stopped.
func TestResumedSessionShowsItsPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	call := session.ToolCall{ID: "p1", Name: "update_plan", Arguments: `{"plan":[{"step":"one","status":"completed"},{"step":"two","status":"in_progress"}]}`}
	f.m.showResumed([]session.Message{session.User("go"), session.Assistant("", call), session.ToolResult(call, "Plan updated"), session.Assistant("half way")})
	if got := f.printed(); !strings.Contains(got, "plan · 1 of 2 done") || !strings.Contains(got, "▸ two") {
		t.Fatalf("resumed:\n%s", got)
	}
}

// TestPlanModeKeys: shift+tab turns plan mode on and off between turns
// (not during one), the status bar says so, and /go edit carries out the
// plan as the person saved it in $EDITOR.
func TestPlanModeKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if !f.app.planning || !strings.Contains(ansi.Strip(f.m.View().Content), "plan mode") {
		t.Fatalf("shift+tab: planning %v\n%s", f.app.planning, ansi.Strip(f.m.View().Content))
	}
	f.submit("/go edit")
	if !strings.Contains(f.m.notice, "no plan yet") {
		t.Fatalf("/go edit without a plan: %q", f.m.notice)
	}
	f.m.lastAnswer = "1. do it"
	f.submit("/go edit")
	if !f.m.planEdit {
		t.Fatal("/go edit did not open the editor")
	}
	f.send(editorTextMsg{text: "1. do it, carefully"})
	if f.app.planning || !f.m.busy || !strings.Contains(f.m.lastUser, "1. do it, carefully") {
		t.Fatalf("after the edit: planning %v busy %v sent %q", f.app.planning, f.m.busy, f.m.lastUser)
	}
	f.send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if f.app.planning || !strings.Contains(f.m.notice, "between turns") {
		t.Fatalf("shift+tab during a turn: %v %q", f.app.planning, f.m.notice)
	}
}
