package tui

import (
	"context"
	"golang.org/x/term"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
)

// framesPerSecond bounds how often streamed deltas reach the model.
const framesPerSecond = 60

// bridge is the one way events reach the program: each becomes a message.
// It sits behind a RateLimited listener, which joins deltas to one a frame
// and never drops or reorders anything; Send blocks while the program is
// busy, which holds the agent back rather than queueing without bound.
type bridge struct{ p *tea.Program }

func (b bridge) OnEvent(e listener.Event) { b.p.Send(agentEventMsg{ev: e}) }

// Run shows the TUI until the person quits. The agent's listener list gets
// the bridge for the program's lifetime.
func Run(ctx context.Context, o Options, ls *listener.List) error {
	m := New(o)
	m.ctx = ctx
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(framesPerSecond)}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
		if f, ok := o.Output.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
			// No terminal to ask: the size of one.
			opts = append(opts, tea.WithWindowSize(80, 24))
		}
	}
	p := tea.NewProgram(m, opts...)
	// Text another front end sends at idle, and its Stop, come through
	// the program's loop: the REPL draws the turn it starts.
	m.loop.SetFront(app.Front{
		Start: func(text string) { p.Send(remoteSendMsg{text: text}) },
		Stop:  func(reason string) { p.Send(remoteStopMsg{reason: reason}) },
	})
	defer m.loop.SetFront(app.Front{})
	rl := listener.NewRateLimited(bridge{p}, framesPerSecond)
	ls.Add(rl)
	if o.Approvals != nil {
		o.Approvals.connect(p.Send)
		defer o.Approvals.connect(nil)
	}
	if o.Listening != nil {
		go o.Listening()
	}
	var out io.Writer = os.Stdout
	if o.Output != nil {
		out = o.Output
	}
	if f, ok := out.(*os.File); ok && !o.Fullscreen {
		anchorAtBottom(f)
	}
	_, err := p.Run()
	return err
}

// anchorAtBottom moves the cursor to the terminal's last row before the
// inline program starts, with blank lines (what was on screen scrolls up,
// into the scrollback). An inline frame that starts high on the screen
// and grows as the input does left a copy of itself at every line it grew
// (Bubble Tea v2.1.1, seen in tmux); one that starts at the bottom grows
// upward cleanly.
func anchorAtBottom(f *os.File) {
	if !term.IsTerminal(int(f.Fd())) {
		return
	}
	if _, h, err := term.GetSize(int(f.Fd())); err == nil && h > 1 {
		_, _ = f.WriteString(strings.Repeat("\n", h-1))
	}
}
