package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Notify says when the REPL tells the person it is their turn, and how.
type Notify struct {
	// When are the moments: "turn" (a turn ended after MinTurn or more),
	// "approval" (an approval or a server's question waits).
	When    []string
	MinTurn time.Duration
	// Method: "auto", "osc9", "osc777", "osc99", "bel" or "off".
	Method string
	// Getenv reads the terminal's variables (TERM, TERM_PROGRAM, TMUX …).
	Getenv func(string) string
}

// notifier is the REPL's side of Notify: the terminal's focus as it
// reports it (DEC mode 1004; a terminal that never reports is taken as
// unfocused, so the person is told).
type notifier struct {
	Notify
	focused bool
}

func (n *notifier) wants(moment string) bool {
	if n.Method == "off" || n.focused {
		return false
	}
	for _, w := range n.When {
		if w == moment {
			return true
		}
	}
	return false
}

// turnEnded tells the person a turn that took took is over.
func (n *notifier) turnEnded(took time.Duration, body string) tea.Cmd {
	if !n.wants("turn") || took < n.MinTurn {
		return nil
	}
	return n.send("chat", body)
}

// waiting tells the person an answer of theirs is wanted.
func (n *notifier) waiting(body string) tea.Cmd {
	if !n.wants("approval") {
		return nil
	}
	return n.send("chat: your answer is wanted", body)
}

func (n *notifier) send(title, body string) tea.Cmd {
	if seq := n.sequence(title, body); seq != "" {
		return tea.Raw(seq)
	}
	return nil
}

// sequence is the notification as the terminal takes it: the method
// asked for, or the one the terminal is known to read ("auto"; BEL where
// none is known), wrapped for tmux to pass on to the terminal it runs in.
func (n *notifier) sequence(title, body string) string {
	title, body = inert(title), inert(body)
	method := n.Method
	if method == "" || method == "auto" {
		method = n.detect()
	}
	var seq string
	switch method {
	case "osc9":
		seq = ansi.Notify(title + ": " + body)
	case "osc99":
		seq = ansi.DesktopNotification(title, "i=chat", "d=0", "p=title") + ansi.DesktopNotification(body, "i=chat", "d=1", "p=body")
	case "osc777":
		// VTE's and foot's notify: OSC 777 ; notify ; TITLE ; BODY (the
		// ansi package has no builder for it).
		seq = "\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\x07"
	case "bel":
		return "\a"
	default:
		return ""
	}
	if n.getenv("TMUX") != "" {
		return ansi.TmuxPassthrough(seq) + "\a" // the bell too: tmux marks the window
	}
	return seq
}

// detect is the method the terminal reads, by what it says of itself.
func (n *notifier) detect() string {
	term, program := n.getenv("TERM"), n.getenv("TERM_PROGRAM")
	switch {
	case n.getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty":
		return "osc99"
	case program == "iTerm.app" || program == "WezTerm" || program == "ghostty" || term == "xterm-ghostty" || n.getenv("WT_SESSION") != "":
		return "osc9"
	case n.getenv("VTE_VERSION") != "" || strings.HasPrefix(term, "foot") || strings.HasPrefix(term, "rxvt"):
		return "osc777"
	}
	return "bel"
}

func (n *notifier) getenv(k string) string {
	if n.Getenv == nil {
		return ""
	}
	return n.Getenv(k)
}

// inert is text fit for a notification: one line, no control characters
// (a model's words must not end the sequence early), not too long.
func inert(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > 120 {
		s = string([]rune(s)[:119]) + "…"
	}
	return s
}

// turnEndText is what a turn's end says in a notification.
func turnEndText(msg turnDoneMsg) string {
	switch {
	case msg.err != nil:
		return "the turn ended: " + msg.err.Error()
	case strings.TrimSpace(msg.res.Content) != "":
		return strings.SplitN(strings.TrimSpace(msg.res.Content), "\n", 2)[0]
	}
	return "the turn ended"
}
