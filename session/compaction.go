package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Compaction describes a summary record: what it stands for and what it
// saved. The summary text is the message's Content.
type Compaction struct {
	// Messages is how many messages the summary folds in (the earlier
	// summary, if any, counts as one).
	Messages int `json:"messages"`
	// From and Through are the ids of the first and last message folded in
	// (after the earlier summary, which the new one also replaces).
	From    string `json:"from,omitempty"`
	Through string `json:"through,omitempty"`
	// Before and After are the estimated tokens of what is sent, before
	// the compaction and after it.
	Before int `json:"tokens_before"`
	After  int `json:"tokens_after"`
	// Instructions are what the person asked the summary to keep (/compact
	// TEXT), empty for an automatic compaction.
	Instructions string `json:"instructions,omitempty"`
	// Cut: the model's summary was longer than the room it had and was cut
	// to fit (a summary must be clearly smaller than what it replaces).
	Cut bool `json:"cut,omitempty"`
	// Dropped: even a summary did not leave room, so the messages are left
	// out of what is sent, unsummarized (the file keeps them).
	Dropped bool `json:"dropped,omitempty"`
}

// Summary returns a compaction record for text.
func Summary(text string, c Compaction) Message {
	return stamp(Message{Role: RoleSummary, Content: text, Compaction: &c})
}

// SummaryHeading introduces the summary in the system message of what is
// sent.
const SummaryHeading = "The earlier part of this conversation was summarized to fit the model's context window. The summary stands for it:"

// Sent is what a request carries of msgs: with no summary record, msgs
// as they are; with one, the system messages, the latest summary (added
// to the system message, so servers that want one system message first
// and strict user/assistant turns accept it) and the messages after it.
// A summary that cut a turn between its steps is followed by that turn's
// question again, so the request still opens with what was asked. The
// full history stays in the session and its file.
func Sent(msgs []Message) []Message {
	_, last := LatestSummary(msgs)
	if last < 0 {
		return msgs
	}
	summary := SummaryHeading + "\n<summary>\n" + strings.TrimSpace(msgs[last].Content) + "\n</summary>"
	out := make([]Message, 0, len(msgs)-last+1)
	for _, m := range msgs[:last] {
		if m.Role == RoleSystem {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		out = append(out, Message{ID: msgs[last].ID, Role: RoleSystem, Time: msgs[last].Time, Content: summary})
	} else {
		out[len(out)-1].Content = joinBlank(out[len(out)-1].Content, summary)
	}
	if last+1 < len(msgs) && msgs[last+1].Role == RoleAssistant {
		for i := last - 1; i >= 0; i-- {
			if msgs[i].Role == RoleUser && !msgs[i].Unanswered {
				out = append(out, msgs[i])
				break
			}
		}
	}
	for _, m := range msgs[last+1:] {
		if m.Role != RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

// LatestSummary is the newest compaction record of msgs and its position,
// -1 when there is none.
func LatestSummary(msgs []Message) (Message, int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleSummary {
			return msgs[i], i
		}
	}
	return Message{}, -1
}

// InsertSummary puts a compaction record right before the message id, so
// it stands for everything before that message; id "" puts it at the end,
// for everything. It goes only before a question or an assistant message,
// or at the end of a history with no pending calls: a cut there never
// separates a tool call from its result.
func (s *Session) InsertSummary(before string, summary Message) error {
	if summary.Role != RoleSummary {
		return fmt.Errorf("insert summary: a %s message is not a summary", summary.Role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := len(s.msgs)
	if before == "" {
		if len(PendingCalls(s.msgs)) > 0 {
			return errors.New("insert summary: the last tool calls have no results yet")
		}
	} else {
		var err error
		if i, err = s.find("insert summary before", before); err != nil {
			return err
		}
		if r := s.msgs[i].Role; r != RoleUser && r != RoleAssistant {
			return fmt.Errorf("insert summary before %s: a summary goes before a question or an answer, not a %s message", before, r)
		}
	}
	// In place where there is room: a copy of the whole history at each
	// compaction left a long session's heap in ever larger pieces.
	s.msgs = slices.Insert(s.msgs, i, summary)
	s.revision++
	return nil
}

// imageTokens is what one attached image is counted as: servers charge
// from a few hundred to a couple of thousand tokens per image.
const imageTokens = 1000

// EstimateTokens is a cautious estimate of the tokens msgs take in a
// request: 3.5 bytes a token (English prose runs nearer 4, code and other
// scripts less) and a few tokens of framing per message. It is used only
// for what the server has not counted yet (see the agent's tracking).
func EstimateTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		size := len(m.Content) + len(m.Context) + len(m.Name) + len(m.ToolCallID)
		for _, c := range m.ToolCalls {
			size += len(c.ID) + len(c.Name) + len(c.Arguments) + 16
		}
		for _, f := range m.Files {
			if f.URL != "" || strings.HasPrefix(f.MediaType, "image/") {
				n += imageTokens
				continue
			}
			size += len(f.Data) + len(f.Filename) + 20
		}
		n += TextTokens(size) + 6
	}
	return n
}

// TextTokens estimates the tokens of size bytes of text.
func TextTokens(size int) int { return (size*2 + 6) / 7 }
