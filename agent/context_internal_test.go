package agent

import (
	"reflect"
	"slices"
	"testing"

	"github.com/chatrepl/chat/session"
)

// TestHeadBeforeIsWhatSentTakes: compaction estimates the request after a
// summary from the head before it (headBefore) instead of a copy of the
// whole history; for every place the summary may go, the request is the
// same.
func TestHeadBeforeIsWhatSentTakes(t *testing.T) {
	call := session.ToolCall{ID: "c1", Name: "read_file", Arguments: `{}`}
	unanswered := session.User("lost")
	unanswered.Unanswered = true
	msgs := []session.Message{
		session.System("sys"),
		session.User("q1"), session.Assistant("a1"),
		session.Summary("older", session.Compaction{}),
		session.User("q2"), session.Assistant("", call), session.ToolResult(call, "r"), session.Assistant("a2"),
		unanswered,
		session.User("q3"), session.Assistant("", call), session.ToolResult(call, "r"), session.Assistant("a3"),
		session.System("late sys"),
		session.User("q4"),
	}
	summary := session.Summary("new", session.Compaction{})
	for cut := 4; cut <= len(msgs); cut++ {
		whole := session.Sent(slices.Concat(msgs[:cut], []session.Message{summary}, msgs[cut:]))
		fromHead := session.Sent(slices.Concat(headBefore(msgs, cut), []session.Message{summary}, msgs[cut:]))
		if !reflect.DeepEqual(whole, fromHead) {
			t.Errorf("cut %d: from the head\n%+v\nfrom the whole history\n%+v", cut, fromHead, whole)
		}
	}
}

// TestCutSkipsAnUnansweredQuestion (K2): the verbatim part after a
// summary starts at a question that was answered, never at one chat
// stopped before answering (it is not sent, so it cannot open the tail).
func TestCutSkipsAnUnansweredQuestion(t *testing.T) {
	lost := session.User("lost question")
	lost.Unanswered = true
	msgs := []session.Message{
		session.System("sys"),
		session.User("q1 " + string(make([]byte, 2000))), session.Assistant("a1 " + string(make([]byte, 2000))),
		lost,
		session.User("q3"), session.Assistant("a3"),
	}
	keep := session.EstimateTokens(msgs[4:]) + 5
	if cut := cutPoint(msgs, 1, keep); cut != 4 {
		t.Fatalf("cut at %d (%s), want 4 (q3)", cut, msgs[max(cut, 0)].Content)
	}
}
