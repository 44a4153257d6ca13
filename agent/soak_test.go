package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// sleepy is a tool that takes a little while and honours cancellation.
type sleepy struct{ tool.Unreviewed }

func (sleepy) Name() string                { return "sleepy" }
func (sleepy) Description() string         { return "waits a moment" }
func (sleepy) Parameters() json.RawMessage { return tool.Object(nil, nil) }
func (sleepy) Timeout() time.Duration      { return time.Second }
func (sleepy) Run(ctx context.Context, _ json.RawMessage) (string, error) {
	select {
	case <-time.After(time.Duration(rand.IntN(3000)) * time.Microsecond):
		return "rested", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// faultyModel answers at random: text, tool calls, 429, 500, cut and
// aborted streams, malformed frames, slow streams.
type faultyModel struct {
	mu     sync.Mutex
	rng    *rand.Rand
	calls  int
	counts map[string]int
}

func (f *faultyModel) reply(req oaitest.Request) oaitest.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	pick := func(kind string) { f.counts[kind]++ }
	text := oaitest.Answer{Text: "An answer, in a few words.\n\nAnd a second paragraph.", Piece: 3}
	if req.Messages[len(req.Messages)-1].Role == "tool" && f.rng.IntN(2) == 0 {
		pick("text")
		return text
	}
	switch r := f.rng.IntN(100); {
	case r < 30:
		pick("text")
		return text
	case r < 55:
		n := 1 + f.rng.IntN(2)
		var calls []oaitest.Call
		for range n {
			f.calls++
			calls = append(calls, oaitest.Call{ID: fmt.Sprint("call_", f.calls), Name: "sleepy", Args: "{}"})
		}
		pick("tool calls")
		return oaitest.Answer{Text: "Let me check.", Calls: calls, Interleave: n > 1}
	case r < 65:
		pick("429")
		return oaitest.Fail{Status: 429, Message: "slow down", Header: map[string]string{"Retry-After-Ms": "1"}}
	case r < 70:
		pick("500")
		return oaitest.Fail{Status: 500, Message: "boom"}
	case r < 75:
		pick("cut stream")
		return oaitest.Answer{Text: "this will be cut short", CutAfter: 1 + f.rng.IntN(4)}
	case r < 80:
		pick("dropped connection")
		return oaitest.Answer{Text: "this connection drops", Abort: true, CutAfter: 1 + f.rng.IntN(4)}
	case r < 85:
		pick("malformed frame")
		return oaitest.Raw{Body: "data: {\"choices\":[{\"delta\":{\"content\":\"ok \"}}]}\n\ndata: {broken\n\n"}
	}
	pick("slow stream")
	return oaitest.Answer{Text: "slowly, slowly", Piece: 2, Delay: 200 * time.Microsecond}
}

// TestSoak runs many turns through the real agent against the strict
// server with random faults, cancels and mid-turn input, and checks after
// every turn: no request refused, every injected item in history exactly
// once (or handed back), the session file equal to memory. SOAK_TURNS
// sets the length (make soak: 1000).
func TestSoak(t *testing.T) {
	turns := 60
	if v, err := strconv.Atoi(os.Getenv("SOAK_TURNS")); err == nil && v > 0 {
		turns = v
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %d turns", seed, turns)
	rng := rand.New(rand.NewPCG(seed, 1))
	model := &faultyModel{rng: rand.New(rand.NewPCG(seed, 2)), counts: map[string]int{}}
	srv := oaitest.New(t)
	srv.SetFallback(model.reply)

	baseGoroutines := runtime.NumGoroutine()
	store := session.Store{Dir: t.TempDir()}
	w, err := store.Create(session.Header{Dir: "/soak"})
	if err != nil {
		t.Fatal(err)
	}
	sess := session.New()
	w.Attach(sess)
	in := control.NewInterloper()
	cancel := control.NewCancellable()
	a := agent.New(agent.Options{
		Client:  llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", BaseBackoff: time.Millisecond}),
		Session: sess, System: "soak", Tools: tool.NewSet(sleepy{}), Listeners: listener.NewList(listener.NewTokenLog(nil)),
		StepLimit: control.NewStepLimit(4), Cancellable: cancel, Interloper: in,
	})
	stats := map[string]int{}
	pushed := 0
	for turn := range turns {
		var wg sync.WaitGroup
		var mine []string
		var mu sync.Mutex
		if rng.IntN(3) == 0 { // cancel at a random moment
			after := time.Duration(rng.IntN(4000)) * time.Microsecond
			wg.Go(func() {
				time.Sleep(after)
				cancel.Cancel("soak")
			})
		}
		for k := range rng.IntN(3) { // mid-turn input at random moments
			after := time.Duration(rng.IntN(3000)) * time.Microsecond
			text := fmt.Sprintf("inject %d.%d", turn, k)
			wg.Go(func() {
				time.Sleep(after)
				mu.Lock()
				mine = append(mine, text)
				mu.Unlock()
				in.Push(text)
			})
		}
		_, err := a.Run(context.Background(), fmt.Sprint("question ", turn))
		wg.Wait() // nothing of this turn may touch the next
		switch {
		case err == nil:
			stats["answered"]++
		case strings.Contains(err.Error(), "cancelled"):
			stats["cancelled"]++
		default:
			stats["failed"]++
		}
		returned := map[string]bool{}
		for _, x := range in.Drain() { // what a host would hand back
			returned[x.Text] = true
		}
		if err := w.Sync(sess); err != nil {
			t.Fatal(err)
		}
		msgs := sess.Messages()
		if rej := srv.Rejected(); len(rej) > 0 {
			t.Fatalf("turn %d: the server refused: %v", turn, rej)
		}
		srv.ForgetRequests()
		if err := session.Validate(msgs, false); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		for _, text := range mine {
			pushed++
			n := 0
			for _, m := range msgs {
				if m.Role == session.RoleUser && m.Content == text {
					n++
				}
			}
			if n+btoi(returned[text]) != 1 {
				t.Fatalf("turn %d: %q is in history %d times and returned %v", turn, text, n, returned[text])
			}
			if returned[text] {
				stats["injects returned"]++
			} else {
				stats["injects delivered"]++
			}
		}
		l, err := session.Load(w.Path())
		if err != nil || len(l.Warnings) > 0 || !reflect.DeepEqual(l.Messages, msgs) {
			t.Fatalf("turn %d: the file (%d messages, %v %v) differs from memory (%d)", turn, len(l.Messages), err, l.Warnings, len(msgs))
		}
	}
	w.Close()
	srv.Close()
	var after int
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if after = runtime.NumGoroutine(); after <= baseGoroutines+2 || time.Now().After(deadline) {
			break
		}
	}
	if after > baseGoroutines+2 {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d before, %d after\n%s", baseGoroutines, after, buf[:runtime.Stack(buf, true)])
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("turns %v; server replies %v; %d injects; %d requests, 0 refused; %d messages; goroutines %d→%d; heap %d MB",
		stats, model.counts, pushed, srv.RequestCount(), sess.Len(), baseGoroutines, after, ms.HeapInuse>>20)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
