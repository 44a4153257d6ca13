package agent_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

// BenchmarkTurn1000Tokens is one whole turn of print mode (agent loop, event
// fan-out, the Terminal listener writing to io.Discard) over a 1,000-chunk
// stream: one op = 1,000 tokens.
func BenchmarkTurn1000Tokens(b *testing.B) {
	body := oaitest.StreamBody(1000, "tok ")
	srv := oaitest.New(b)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Raw{Body: body} })
	client := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-model", BaseBackoff: time.Millisecond})
	ls := listener.NewList(listener.NewTerminal(io.Discard, io.Discard, false))
	b.ReportAllocs()
	for b.Loop() {
		a := agent.New(agent.Options{Client: client, Session: session.New(), Listeners: ls})
		if _, err := a.Run(context.Background(), "go"); err != nil {
			b.Fatal(err)
		}
	}
}
