package llm_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/llm"
)

// BenchmarkStream1000Tokens is the client's cost to consume a 1,000-chunk
// stream from a local server at full speed: one op = 1,000 tokens. The body
// is pre-rendered, so the in-process server adds only a constant per
// request (one write of the body).
func BenchmarkStream1000Tokens(b *testing.B) {
	srv := oaitest.Flood(b, 1000, "tok ")
	client := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-model", BaseBackoff: time.Millisecond})
	req := ask("go")
	n := 0
	h := llm.Handler{Chunk: func(c llm.Chunk) error { n += len(c.Text); return nil }}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Complete(context.Background(), req, h)
		if err != nil || len(resp.Content) != 4000 {
			b.Fatal(err, len(resp.Content))
		}
	}
}
