package app

import (
	"context"
	"testing"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
)

func TestContextWindowPrecedence(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	caps := func(cfg config.Config, model string, probe bool) []int {
		rec := &listener.Recorder{}
		a := agent.New(agent.Options{Client: llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: model}), Listeners: listener.NewList(rec)})
		cfg.BaseURL = srv.BaseURL()
		if find := contextWindow(context.Background(), cfg, a, probe); find != nil {
			<-find()
		}
		var out []int
		for _, e := range rec.Events() {
			out = append(out, e.(listener.ContextCap).Tokens)
		}
		return out
	}
	if got := caps(config.Config{ContextWindow: 5000}, "gpt-4o", true); len(got) != 1 || got[0] != 5000 {
		t.Fatalf("explicit: %v", got)
	}
	if got := caps(config.Config{}, "gpt-4o", false); len(got) != 1 || got[0] != 128000 {
		t.Fatalf("table: %v", got)
	}
	if got := caps(config.Config{}, "my-finetune", false); len(got) != 0 {
		t.Fatalf("unknown: %v", got)
	}
}
