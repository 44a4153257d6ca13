package agent_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/tool"

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
	srv := oaitest.Flood(b, 1000, "tok ")
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

// BenchmarkCancel is the time from Cancel() to Run returning (the prompt
// is ready again): during a stream (and until the server sees the
// connection closed), during a slow tool, and during a retry back-off.
func BenchmarkCancel(b *testing.B) {
	b.Run("stream", func(b *testing.B) {
		srv := oaitest.New(b)
		client := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
		var ready, closed time.Duration
		for b.Loop() {
			gate := oaitest.NewGate()
			srv.Push(oaitest.Answer{Text: "never ends", Gate: gate, GateAfter: 1})
			c := control.NewCancellable()
			a := agent.New(agent.Options{Client: client, Cancellable: c})
			done := make(chan time.Time)
			go func() { a.Run(context.Background(), "go"); done <- time.Now() }()
			<-gate.Entered()
			start := time.Now()
			c.Cancel("bench")
			<-srv.Hangups()
			closed += time.Since(start)
			ready += (<-done).Sub(start)
		}
		b.ReportMetric(float64(ready.Microseconds())/float64(b.N), "µs-to-ready")
		b.ReportMetric(float64(closed.Microseconds())/float64(b.N), "µs-to-closed")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("tool", func(b *testing.B) {
		srv := oaitest.New(b)
		client := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"})
		var ready time.Duration
		for b.Loop() {
			slow := newGatedEcho("slow")
			srv.Push(oaitest.Answer{Calls: []oaitest.Call{{ID: "c", Name: "slow", Args: "{}"}}})
			c := control.NewCancellable()
			a := agent.New(agent.Options{Client: client, Cancellable: c, Tools: tool.NewSet(slow)})
			done := make(chan time.Time)
			go func() { a.Run(context.Background(), "go"); done <- time.Now() }()
			<-slow.entered
			start := time.Now()
			c.Cancel("bench")
			ready += (<-done).Sub(start)
		}
		b.ReportMetric(float64(ready.Microseconds())/float64(b.N), "µs-to-ready")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("backoff", func(b *testing.B) {
		srv := oaitest.New(b)
		client := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m", BaseBackoff: 10 * time.Second})
		var ready time.Duration
		for b.Loop() {
			srv.Push(oaitest.Fail{Status: 503, Message: "busy"})
			c := control.NewCancellable()
			retrying := make(chan struct{}, 1)
			ls := listener.NewList(listener.Func(func(e listener.Event) {
				if _, ok := e.(listener.Retry); ok {
					retrying <- struct{}{}
				}
			}))
			a := agent.New(agent.Options{Client: client, Cancellable: c, Listeners: ls})
			done := make(chan time.Time)
			go func() { a.Run(context.Background(), "go"); done <- time.Now() }()
			<-retrying
			start := time.Now()
			c.Cancel("bench")
			ready += (<-done).Sub(start)
		}
		b.ReportMetric(float64(ready.Microseconds())/float64(b.N), "µs-to-ready")
		b.ReportMetric(0, "ns/op")
	})
}
