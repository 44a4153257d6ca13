package llm_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/llm"
)

// TestChunksReadTogetherArePassedOnTogether: events that arrived in one
// write reach the handler as a few chunks, not one each, in order, the
// text whole and the kinds apart.
func TestChunksReadTogetherArePassedOnTogether(t *testing.T) {
	t.Parallel()
	var body, want, wantReasoning strings.Builder
	event := func(delta string) { fmt.Fprintf(&body, "data: {\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta) }
	for i := range 40 {
		event(fmt.Sprintf(`{"reasoning_content":"r%d "}`, i))
		fmt.Fprintf(&wantReasoning, "r%d ", i)
	}
	for i := range 200 {
		event(fmt.Sprintf(`{"content":"t%d "}`, i))
		fmt.Fprintf(&want, "t%d ", i)
	}
	body.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	srv := oaitest.New(t, oaitest.Raw{Body: body.String()})

	var kinds []llm.ChunkKind
	var text, reasoning strings.Builder
	resp, err := newClient(srv).Complete(context.Background(), ask("x"), llm.Handler{Chunk: func(ch llm.Chunk) error {
		kinds = append(kinds, ch.Kind)
		if ch.Kind == llm.ChunkText {
			text.WriteString(ch.Text)
		} else {
			reasoning.WriteString(ch.Text)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != want.String() || resp.Content != want.String() || reasoning.String() != wantReasoning.String() {
		t.Fatalf("text %q\nreasoning %q", text.String(), reasoning.String())
	}
	if len(kinds) >= 240/4 {
		t.Errorf("%d chunks for 240 events read together", len(kinds))
	}
	seenText := false
	for _, k := range kinds {
		if k == llm.ChunkReasoning && seenText {
			t.Fatalf("reasoning after text: %v", kinds)
		}
		seenText = seenText || k == llm.ChunkText
	}
}

// TestAChunkIsNotHeldForTheNext: a chunk is passed on as soon as it is
// read when nothing follows it yet; joining never waits for the network.
func TestAChunkIsNotHeldForTheNext(t *testing.T) {
	t.Parallel()
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "aaaabbbbccccdddd", Piece: 4, Gate: gate, GateAfter: 3})
	var mu sync.Mutex
	var text strings.Builder
	done := make(chan error, 1)
	go func() {
		_, err := newClient(srv).Complete(context.Background(), ask("x"), llm.Handler{Chunk: func(ch llm.Chunk) error {
			mu.Lock()
			text.WriteString(ch.Text)
			mu.Unlock()
			return nil
		}})
		done <- err
	}()
	<-gate.Entered()
	shown := func() string {
		mu.Lock()
		defer mu.Unlock()
		return text.String()
	}
	for deadline := time.Now().Add(30 * time.Second); shown() != "aaaabbbbcccc"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("with the stream held after three chunks, the handler has %q", shown())
		}
	}
	gate.Release()
	if err := <-done; err != nil || shown() != "aaaabbbbccccdddd" {
		t.Fatalf("%v, %q", err, shown())
	}
}

// TestAFastStreamIsReadInBatches: chunks a server sends faster than they
// are consumed, each written and flushed alone, are read a batch at a time
// (see pacedBody), not woken for one by one.
func TestAFastStreamIsReadInBatches(t *testing.T) {
	t.Parallel()
	const chunks = 4000
	text := strings.Repeat("tok ", chunks)
	srv := oaitest.New(t, oaitest.Answer{Text: text, Piece: 4})
	passed := 0
	resp, err := newClient(srv).Complete(context.Background(), ask("x"), llm.Handler{Chunk: func(llm.Chunk) error {
		passed++
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != text {
		t.Fatalf("got %d bytes of %d", len(resp.Content), len(text))
	}
	if passed >= chunks/4 {
		t.Errorf("%d chunks passed on for %d sent as fast as the server could", passed, chunks)
	}
}
