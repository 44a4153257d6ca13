package synthesizer

import (
	"context"
	"errors"
	"testing"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

func synthesize(t *testing.T, reply oaitest.Reply) (session.Message, error) {
	t.Helper()
	srv := oaitest.New(t, reply)
	o := Options{Client: llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "m"}), Model: "m",
		Listeners: listener.NewList(), Cancellable: control.NewCancellable()}
	return Run(context.Background(), o, "what is 2+2?", []session.Message{session.User("what is 2+2?")})
}

// TestRunDropsToolCalls: none were offered, so calls a server sends
// anyway never reach the history (they would have no result).
func TestRunDropsToolCalls(t *testing.T) {
	msg, err := synthesize(t, oaitest.Answer{Text: "4", Calls: []oaitest.Call{{ID: "c1", Name: "run_shell", Args: `{"command":"ls"}`}}})
	if err != nil || msg.Content != "4" || len(msg.ToolCalls) != 0 || !msg.Synthesized {
		t.Fatalf("%+v %v", msg, err)
	}
}

// TestRunRefusesAnEmptyAnswer: blank text is no answer.
func TestRunRefusesAnEmptyAnswer(t *testing.T) {
	if msg, err := synthesize(t, oaitest.Answer{Text: " \n "}); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("%+v %v", msg, err)
	}
}
