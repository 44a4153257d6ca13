package tui

import (
	"strings"
	"testing"
	"time"
)

func TestNotifySequences(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		method string
		env    []string
		want   string
	}{
		{"auto", []string{"TERM_PROGRAM", "iTerm.app"}, "\x1b]9;chat: done\a"},
		{"auto", []string{"TERM_PROGRAM", "WezTerm"}, "\x1b]9;chat: done\a"},
		{"auto", []string{"TERM", "xterm-ghostty"}, "\x1b]9;chat: done\a"},
		{"auto", []string{"WT_SESSION", "x"}, "\x1b]9;chat: done\a"},
		{"auto", []string{"VTE_VERSION", "7600"}, "\x1b]777;notify;chat;done\a"},
		{"auto", []string{"TERM", "foot"}, "\x1b]777;notify;chat;done\a"},
		{"auto", []string{"KITTY_WINDOW_ID", "1"}, "\x1b]99;i=chat:d=0:p=title;chat\a\x1b]99;i=chat:d=1:p=body;done\a"},
		{"auto", []string{"TERM", "xterm-256color"}, "\a"},
		{"osc9", []string{"TMUX", "/tmp/tmux-0/default,1,0"}, "\x1bPtmux;\x1b\x1b]9;chat: done\a\x1b\\\a"},
		{"off", nil, ""},
	} {
		n := notifier{Notify: Notify{When: []string{"turn"}, Method: c.method, Getenv: env(c.env...)}}
		var got string
		if n.wants("turn") {
			got = n.sequence("chat", "done")
		}
		if got != c.want {
			t.Errorf("%s %v: %q, want %q", c.method, c.env, got, c.want)
		}
	}
	// A model's words cannot end the sequence or start another.
	n := notifier{Notify: Notify{Method: "osc777"}}
	if got := n.sequence("chat", "a\x07b\x1b]0;pwned\x1b\\;c"); strings.ContainsAny(got[len("\x1b]777;notify;chat;"):len(got)-1], "\x07\x1b") {
		t.Errorf("control characters went through: %q", got)
	}
	// Short turns, focus, and moments not asked for say nothing.
	n = notifier{Notify: Notify{When: []string{"turn"}, MinTurn: 10 * time.Second, Method: "bel"}}
	if n.turnEnded(time.Second, "x") != nil || n.waiting("x") != nil {
		t.Error("told of a short turn, or of an approval not asked for")
	}
	n.focused = true
	if n.turnEnded(time.Minute, "x") != nil {
		t.Error("told while the terminal had focus")
	}
}
