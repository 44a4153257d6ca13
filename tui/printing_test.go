package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/listener"
)

// stalledProgram plays Bubble Tea's program around the model with a
// renderer that is late (a loaded machine): it draws the newest view only
// when nothing else happens for a while, and answers a cursor position
// report only after it drew. Each print is checked as the real renderer
// makes room for it: the printed rows and the frame drawn last must fit
// in the window, or that frame's top scrolls into the scrollback.
type stalledProgram struct {
	t       *testing.T
	f       *fixture
	results chan tea.Msg
	drawn   int // rows of the frame on screen
	newest  int // rows of the newest view
	asked   int // reports not answered yet
	printed []string
}

func (p *stalledProgram) start(c tea.Cmd) {
	if c == nil {
		return
	}
	go func() { p.results <- c() }()
}

// sequence runs the commands one after the other, as tea.Sequence does.
func (p *stalledProgram) sequence(cmds reflect.Value) {
	go func() {
		for i := range cmds.Len() {
			if c, _ := cmds.Index(i).Interface().(tea.Cmd); c != nil {
				p.results <- c()
			}
		}
	}()
}

func (p *stalledProgram) update(msg tea.Msg) {
	p.start(p.f.send(msg))
	p.newest = lineCount(p.f.m.View().Content)
}

// handle is one message, as the program's event loop takes it.
func (p *stalledProgram) handle(msg tea.Msg) {
	switch kind := fmt.Sprintf("%T", msg); {
	case msg == nil:
	case kind == "tea.BatchMsg":
		for _, c := range msg.(tea.BatchMsg) {
			p.start(c)
		}
	case kind == "tea.sequenceMsg":
		p.sequence(reflect.ValueOf(msg))
	case kind == "tea.printLineMessage":
		body := reflect.ValueOf(msg).FieldByName("messageBody").String()
		if rows := lineCount(body); rows+p.drawn > p.f.m.height {
			p.t.Errorf("%d rows printed above a drawn frame of %d rows in a window of %d: its top went to the scrollback", rows, p.drawn, p.f.m.height)
		}
		p.printed = append(p.printed, ansi.Strip(body))
	case kind == "tea.requestCursorPosMsg":
		p.asked++
	case reflect.TypeOf(msg).PkgPath() == reflect.TypeOf(typedMsg{}).PkgPath():
		p.update(msg)
	}
}

// run drives cmd until the screen is up to date and nothing waits to be
// printed (a timer still running, the blink's or the wait's own, is let
// run).
func (p *stalledProgram) run(cmd tea.Cmd) {
	p.start(cmd)
	for {
		select {
		case msg := <-p.results:
			p.handle(msg)
			continue
		case <-time.After(200 * time.Millisecond):
		}
		// Idle: the late renderer draws, then answers what was asked.
		p.drawn = p.newest
		for ; p.asked > 0; p.asked-- {
			p.update(tea.CursorPositionMsg{})
		}
		if p.drawn == p.newest && !p.f.m.printing && len(p.f.m.outbox) == 0 {
			return
		}
	}
}

// TestAClosedTallBlockWaitsForTheSmallerFrame: an open code block fills
// an 80×24 frame; when it closes, the block is printed above a frame
// that shrank only in chat's view until the renderer draws it. The
// renderer is late by more than any clock chat could wait on: every
// print fits above the frame that is really on screen, and the block
// arrives whole, in order, once.
func TestAClosedTallBlockWaitsForTheSmallerFrame(t *testing.T) {
	t.Parallel()
	f := busyFixture(t, "show me code")
	f.m.drawnTimeout = time.Hour
	f.m.now = time.Now // the renderer's lateness is in real time
	o := listener.Origin{Turn: 1}
	var code strings.Builder
	code.WriteString("Here is the code:\n\n```go\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&code, "fmt.Println(\"code line %02d\")\n", i)
	}
	p := &stalledProgram{t: t, f: f, results: make(chan tea.Msg)}
	f.m.printing, f.m.outbox = false, nil // the question was printed
	p.update(agentEventMsg{ev: listener.AssistantDelta{Origin: o, Text: code.String()}})
	p.run(nil)
	if p.drawn < 20 {
		t.Fatalf("the open block's frame is %d rows, want it to fill the window", p.drawn)
	}
	p.update(agentEventMsg{ev: listener.AssistantDelta{Origin: o, Text: "```\n\nAFTER THE CODE\n"}})
	p.run(nil)
	all := strings.Join(p.printed, "\n")
	last := -1
	for i := 1; i <= 40; i++ {
		line := fmt.Sprintf("code line %02d", i)
		if n := strings.Count(all, line); n != 1 {
			t.Fatalf("%q printed %d times:\n%s", line, n, all)
		}
		at := strings.Index(all, line)
		if at < last {
			t.Fatalf("%q out of order:\n%s", line, all)
		}
		last = at
	}
}
