package listener

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestListForSubAgent(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	tokens := NewTokenLog(nil)
	main := NewList(rec, tokens)
	child := main.ForSubAgent("researcher 0")
	if child.ID() != "researcher 0" {
		t.Fatalf("child id %q", child.ID())
	}
	main.Emit(Usage{Prompt: 10, Completion: 2, Total: 12})
	child.Emit(Usage{Origin: Origin{Agent: "researcher 0"}, Prompt: 1, Completion: 1, Total: 2})
	if got := len(rec.Events()); got != 2 {
		t.Fatalf("recorder shared by reference should see 2 events, saw %d", got)
	}
	if tokens.Get("") != (Tokens{Prompt: 10, Completion: 2, Total: 12, Unpriced: true}) || tokens.Get("researcher 0") != (Tokens{Prompt: 1, Completion: 1, Total: 2, Unpriced: true}) {
		t.Fatalf("token tally %+v %+v", tokens.Get(""), tokens.Get("researcher 0"))
	}
}

func TestTerminal(t *testing.T) {
	t.Parallel()
	var out, diag bytes.Buffer
	term := NewTerminal(&out, &diag, false)
	l := NewList(term)
	l.Emit(AssistantDelta{Text: "Hel"})
	l.Emit(AssistantDelta{Text: "lo \x1b[2Jthere"})
	l.Emit(ToolCall{Name: "read_file", Arguments: `{"path": "a.go"}`})
	l.Emit(ToolResult{Name: "read_file", Content: "abc"})
	// A sub-agent's answer is its caller's tool result: one line on diag,
	// never in the answer stream.
	sub := l.ForSubAgent("researcher 0")
	sub.Emit(UserTurn{Content: "find\nit"})
	sub.Emit(AssistantDelta{Text: "one\ntwo"})
	sub.Emit(Assistant{Text: "one\ntwo"})
	sub.Emit(TurnDone{})
	syn := l.ForSubAgent("synthesizer")
	syn.Emit(Assistant{Text: "final"})
	syn.Emit(TurnDone{})
	if want := "Hello there\nfinal\n"; out.String() != want {
		t.Fatalf("out = %q, want %q", out.String(), want)
	}
	if want := "→ read_file {\"path\": \"a.go\"}\n  ✓ 3 bytes\n  ⤷ researcher 0: find it\n  ⤶ researcher 0 answered: one two\n"; diag.String() != want {
		t.Fatalf("diag = %q, want %q", diag.String(), want)
	}
}

func TestJSONL(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := NewList(NewJSONL(&buf))
	l.Emit(UserTurn{Origin: Origin{Turn: 3}, Content: "hi"})
	l.Emit(ToolResult{Origin: Origin{Agent: "synthesizer", Turn: 3}, ID: "c1", Name: "x", Err: errors.New("boom")})
	l.Emit(Retry{Attempt: 1, Wait: 1500 * time.Millisecond, Err: errors.New("429")})
	l.Emit(Compacting{Origin: Origin{Agent: "researcher 0", Turn: 3}, Manual: true})
	l.Emit(Compacted{Origin: Origin{Turn: 3}, Messages: 12, Before: 3300, After: 1300})
	l.Emit(Job{ID: 1, Command: "sleep 9", State: "running"}) // of no turn
	sc := bufio.NewScanner(&buf)
	var got []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if _, ok := got[5]["turn"]; ok || got[5]["type"] != "job" {
		t.Errorf("a job, which belongs to no turn, carries one: %v", got[5])
	}
	if len(got) != 6 || got[0]["type"] != "user_turn" || got[0]["content"] != "hi" || got[0]["turn"] != 3.0 ||
		got[1]["agent"] != "synthesizer" || got[1]["error"] != "boom" || got[2]["wait_ms"] != 1500.0 ||
		got[3]["type"] != "compacting" || got[3]["agent"] != "researcher 0" || got[3]["manual"] != true ||
		got[4]["type"] != "compacted" || got[4]["messages"] != 12.0 || got[4]["tokens_before"] != 3300.0 || got[4]["tokens_after"] != 1300.0 {
		t.Fatalf("jsonl = %v", got)
	}
}

// TestRateLimitedKeepsEverything streams from several goroutines-worth of
// agents through one RateLimited and checks the text and the order of the
// non-delta events survive coalescing.
func TestRateLimitedKeepsEverything(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	rl := NewRateLimited(rec, 20)
	l := NewList(rl)
	sub := l.ForSubAgent("synthesizer")
	var want strings.Builder
	for i := range 2000 {
		s := string(rune('a' + i%26))
		want.WriteString(s)
		l.Emit(AssistantDelta{Text: s})
		if i%500 == 0 {
			l.Emit(ToolCall{ID: s})
			sub.Emit(AssistantDelta{Origin: Origin{Agent: "synthesizer"}, Text: "S"})
		}
	}
	l.Emit(TurnDone{})
	var got strings.Builder
	var kinds []string
	for _, e := range rec.Events() {
		if d, ok := e.(AssistantDelta); ok && d.Agent == "" {
			got.WriteString(d.Text)
		}
		if _, ok := e.(AssistantDelta); !ok {
			kinds = append(kinds, e.Kind())
		}
	}
	if got.String() != want.String() {
		t.Fatalf("text lost or reordered: %d vs %d bytes", got.Len(), want.Len())
	}
	if strings.Join(kinds, ",") != "tool_call,tool_call,tool_call,tool_call,turn_done" {
		t.Fatalf("non-delta events %v", kinds)
	}
	if n := len(rec.Events()); n > 200 {
		t.Fatalf("%d deliveries: deltas were not coalesced", n)
	}
}

func TestRateLimitedTimerFlushes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	done := make(chan struct{})
	var text string
	rl := NewRateLimited(Func(func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		text += e.(AssistantDelta).Text
		if text == "abc" {
			close(done)
		}
	}), 50)
	rl.OnEvent(AssistantDelta{Text: "a"})
	rl.OnEvent(AssistantDelta{Text: "b"})
	rl.OnEvent(AssistantDelta{Text: "c"})
	<-done // a trailing delta is flushed by the timer without any further event
}

// TestRateLimitedKeepsOrderAcrossKinds: a non-delta event never overtakes
// deltas queued before it, nor a delta queued after it.
func TestRateLimitedKeepsOrderAcrossKinds(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	rl := NewRateLimited(rec, 1) // one flush a second: deltas queue
	for _, e := range []Event{
		AssistantDelta{Text: "a"}, AssistantDelta{Text: "b"}, ToolCall{ID: "x"},
		ThinkingDelta{Text: "t"}, AssistantDelta{Text: "c"}, ToolResult{ID: "x"}, AssistantDelta{Text: "d"}, TurnDone{},
	} {
		rl.OnEvent(e)
	}
	// Adjacent deltas of one kind may arrive joined or not; their order
	// against everything else is what counts.
	var got []string
	add := func(prefix, text string) {
		if n := len(got); n > 0 && strings.HasPrefix(got[n-1], prefix) {
			got[n-1] += text
			return
		}
		got = append(got, prefix+text)
	}
	for _, e := range rec.Events() {
		switch d := e.(type) {
		case AssistantDelta:
			add("text:", d.Text)
		case ThinkingDelta:
			add("thinking:", d.Text)
		default:
			got = append(got, e.Kind())
		}
	}
	want := "text:ab tool_call thinking:t text:c tool_result text:d turn_done"
	if strings.Join(got, " ") != want {
		t.Fatalf("delivered %v\nwant      %s", got, want)
	}
}

// TestRateLimitedJoinsOnlyTheSameStream: deltas of two agents, and the
// outputs of two tool calls, are never joined into one event.
func TestRateLimitedJoinsOnlyTheSameStream(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	rl := NewRateLimited(rec, 1) // one flush a second: everything queues
	sub := Origin{Agent: "sub"}
	for _, e := range []Event{
		AssistantDelta{Text: "m"}, AssistantDelta{Text: "m"}, AssistantDelta{Origin: sub, Text: "s"}, AssistantDelta{Origin: sub, Text: "s"}, AssistantDelta{Text: "m"},
		ToolOutput{ID: "1", Text: "1"}, ToolOutput{ID: "1", Text: "1"}, ToolOutput{ID: "2", Text: "2"}, ToolOutput{ID: "1", Text: "1"},
	} {
		rl.OnEvent(e)
	}
	rl.Flush()
	var got []string
	for _, e := range rec.Events() {
		switch d := e.(type) {
		case AssistantDelta:
			got = append(got, d.Agent+":"+d.Text)
		case ToolOutput:
			got = append(got, "out"+d.ID+":"+d.Text)
		}
	}
	// The first delta may go out at once; what follows is joined per stream.
	want := []string{":mm", "sub:ss", ":m", "out1:11", "out2:2", "out1:1"}
	if strings.Join(got, " ") != strings.Join(want, " ") && strings.Join(got, " ") != ":m "+strings.Join(append([]string{":m"}, want[1:]...), " ") {
		t.Fatalf("got %q", got)
	}
}
