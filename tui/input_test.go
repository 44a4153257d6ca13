package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestALongInputTakesABurstInOnce: at the end of a long text even the
// first key of a burst waits for the ones after it, and they go into the
// textarea together (each put-in re-wraps the whole text); the text read
// meanwhile has them all, and what is sent is what was typed.
func TestALongInputTakesABurstInOnce(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("the quick brown fox ", 30) // 600 characters
	f.m.input.set(long)
	f.typeText("abc")
	if got := f.m.input.ta.Value(); got != long {
		t.Fatalf("the textarea took keys one by one: %q", got[len(long):])
	}
	if got := f.m.input.value(); got != long+"abc" {
		t.Fatalf("value() = …%q, want …abc", got[len(got)-5:])
	}
	f.m.input.lastGathered = time.Now().Add(-time.Second) // the burst has paused
	f.send(typedMsg{})
	if got := f.m.input.ta.Value(); got != long+"abc" {
		t.Fatalf("after the tick the textarea has …%q", got[len(got)-5:])
	}
	if f.m.input.typing {
		t.Fatal("still gathering after the burst went in")
	}
	// A short text takes its first key at once, as a person expects.
	f.m.input.clear()
	f.typeText("x")
	if got := f.m.input.ta.Value(); got != "x" {
		t.Fatalf("a short input's first key waited: %q", got)
	}
}

// TestValueFollowsEveryEdit: the kept text is right through gathering,
// putting in, clearing and editing in the middle.
func TestValueFollowsEveryEdit(t *testing.T) {
	f := newFixture(t)
	want := ""
	check := func(step string) {
		t.Helper()
		if got := f.m.input.value(); got != want {
			t.Fatalf("%s: value() = %q, want %q", step, got, want)
		}
	}
	for _, r := range "hello world" {
		f.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		want += string(r)
		check("typing")
	}
	f.m.input.lastGathered = time.Time{}
	f.send(typedMsg{})
	check("after the tick")
	f.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	want = "hello worl"
	check("backspace")
	f.m.input.clear()
	want = ""
	check("clear")
	f.typeText("again")
	want = "again"
	check("typing after clear")
	f.send(tea.KeyPressMsg{Code: tea.KeyHome})
	f.typeText(">")
	want = ">again"
	check("typing at the start")
}
