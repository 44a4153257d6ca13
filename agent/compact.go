package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/llm/emit"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/synthesizer"
	"github.com/chatrepl/chat/tool"
)

// compact folds the earlier turns of the history into a summary so what
// is sent fits window (0: unknown) with room to spare: the recent turns
// that fit keepShare of it, and always the current one, stay verbatim. A
// failure leaves the history as it was. mustFit: the request would be
// refused otherwise, so even a little history is folded.
func (t *turn) compact(manual bool, instructions string, window int, mustFit bool) error {
	a := t.a
	// The history is read in place and only what is needed copied: a copy
	// of a long history at each compaction left the heap in ever larger
	// pieces.
	var (
		earlier session.Message
		at, cut int
		folded  []session.Message
		// What a request after the summary takes from the history: the
		// head before the summary (headBefore) and the tail after it.
		head, tail []session.Message
		next       string // the message the summary goes before ("" at the end)
	)
	fixed := specTokens(t.a.specsFor(t.tools, t.sess.Sent()))
	t.sess.View(func(msgs []session.Message) {
		earlier, at = session.LatestSummary(msgs)
		if len(msgs) > 0 && msgs[0].Role == session.RoleSystem {
			fixed += session.EstimateTokens(msgs[:1])
		}
		cut = cutPoint(msgs, at+1, int(float64(window)*keepShare)-fixed)
		if manual && len(session.PendingCalls(msgs)) == 0 {
			cut = len(msgs) // asked for: everything, as a fresh start with the summary
		}
		for _, m := range msgs[at+1 : max(cut, at+1)] {
			if m.Role != session.RoleSystem && !m.Unanswered {
				folded = append(folded, m)
			}
		}
		if cut < 0 || len(folded) == 0 {
			return
		}
		head, tail = headBefore(msgs, cut), slices.Clone(msgs[cut:])
		if cut < len(msgs) {
			next = msgs[cut].ID
		}
	})
	if cut < 0 || len(folded) == 0 {
		return ErrNothingToCompact
	}
	if !manual && !mustFit && at < 0 && session.EstimateTokens(folded) < max(window/10, minFoldTokens) {
		// A summary costs about what folding this little saves (a
		// question alone, say): what is too large is elsewhere.
		return ErrNothingToCompact
	}
	t.preCompact(manual, instructions)
	before := a.ContextSize()
	t.emit(listener.Compacting{Origin: t.origin, Manual: manual})
	// The summary's room: a share of the window, and clearly less than
	// what it replaces (a summary that does not shrink never ends).
	replaced := session.EstimateTokens(folded)
	if at >= 0 {
		replaced += session.EstimateTokens([]session.Message{earlier})
	}
	room := summaryRoom(window, replaced)
	words := room * 3 / 4
	model := cmp.Or(a.o.SmallModel, t.model)
	text, used, err := synthesizer.Summarize(a.o.Cancellable.Context(), synthesizer.SummaryOptions{
		Client: a.o.Client, Model: model, Listeners: a.o.Listeners, Origin: t.origin, Cancellable: a.o.Cancellable,
		NoStream: a.o.NoStream, Budget: window, Words: words, MaxTokens: room, Instructions: instructions,
	}, earlier.Content, folded)
	t.result.Usage = t.result.Usage.Add(used)
	if used.Total > 0 {
		// What the summary cost, said as the synthesizer's (it is not
		// the conversation's size).
		emit.Usage(a.o.Listeners, listener.Origin{Agent: listener.SynthesizerID(a.o.ID), Turn: t.origin.Turn},
			cmp.Or(model, a.o.Client.Model()), used, t.priceOf(model))
	}
	if cerr := a.o.Cancellable.Check(); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("compacting the conversation: %w", err)
	}
	count := len(folded)
	if at >= 0 {
		count++
	}
	text, cutShort := fitSummary(text, room)
	summary := session.Summary(text, session.Compaction{Messages: count, Before: before, Instructions: instructions,
		From: folded[0].ID, Through: folded[len(folded)-1].ID, Cut: cutShort})
	after := func() int {
		trial := slices.Concat(head, []session.Message{summary}, tail)
		return session.EstimateTokens(answered(session.Sent(trial))) + specTokens(t.a.specsFor(t.tools, session.Sent(trial)))
	}
	summary.Compaction.After = after()
	if window > 0 && summary.Compaction.After > window*9/10 {
		// Even the summary leaves no room: the earlier turns are left out
		// of what is sent (the file keeps them), and the record says so.
		summary.Content = fmt.Sprintf("(%d earlier messages of this conversation were left out to fit the context window; the user can read them in the session file.)", count)
		summary.Compaction.Dropped, summary.Compaction.Cut = true, false
		summary.Compaction.After = after()
	}
	if err := t.sess.InsertSummary(next, summary); err != nil {
		return err
	}
	folds := folded
	if at >= 0 {
		folds = append([]session.Message{earlier}, folded...)
	}
	t.emit(listener.Compacted{Origin: t.origin, Messages: count, Before: before, After: summary.Compaction.After, Manual: manual,
		Folded: session.EstimateTokens(folds), Summary: session.EstimateTokens([]session.Message{summary}),
		Cut: summary.Compaction.Cut, Dropped: summary.Compaction.Dropped})
	return nil
}

// headBefore is what Sent takes from before a summary put at cut: the
// system messages and the latest answered question (sent again when the
// summary cuts a turn between its steps).
func headBefore(msgs []session.Message, cut int) []session.Message {
	var head []session.Message
	for _, m := range msgs[:cut] {
		if m.Role == session.RoleSystem {
			head = append(head, m)
		}
	}
	for i := cut - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser && !msgs[i].Unanswered {
			return append(head, msgs[i])
		}
	}
	return head
}

// summaryRoom is the tokens a summary may take: a fifth of the window
// (400 when it is unknown), at most two thirds of what it replaces, at
// least 64.
func summaryRoom(window, replaced int) int {
	room := 400
	if window > 0 {
		room = max(window/5, 150)
	}
	return max(min(room, replaced*2/3), 64)
}

// fitSummary cuts a summary longer than room tokens (a model may ignore
// the word limit and a server max_tokens), saying so at its end.
func fitSummary(text string, room int) (string, bool) {
	if session.TextTokens(len(text)) <= room {
		return text, false
	}
	keep := max(room*7/2-80, 0) // TextTokens counts 3.5 bytes a token; the note takes the rest
	cut := strings.ToValidUTF8(text[:min(keep, len(text))], "")
	return strings.TrimSpace(cut) + "\n[the summary was cut here to fit the context window]", true
}

// cutPoint is where the verbatim part starts: the earliest question after
// from whose tail fits keep tokens, else the latest question. When even
// the current turn does not fit, it is cut between its steps (before an
// assistant message: never between a call and its result), keeping the
// latest steps that fit, at least the last. -1 when there is no cut.
func cutPoint(msgs []session.Message, from, keep int) int {
	fits := func(i int) bool { return session.EstimateTokens(answered(msgs[i:])) <= keep }
	cut := -1
	for i := len(msgs) - 1; i >= from; i-- {
		if msgs[i].Role != session.RoleUser || msgs[i].Unanswered {
			continue
		}
		if cut >= 0 && !fits(i) {
			break
		}
		cut = i
	}
	if cut >= 0 && fits(cut) {
		return cut
	}
	step := -1
	for i := len(msgs) - 1; i > max(cut, from-1); i-- {
		if msgs[i].Role != session.RoleAssistant {
			continue
		}
		if step >= 0 && !fits(i) {
			break
		}
		step = i
	}
	if step >= 0 {
		return step
	}
	return cut
}

// fitResult bounds one of n tool results of a batch to a share of a known
// window, and to the room the current turn leaves in it (the turn itself
// cannot be summarized away): a big file read late in a long turn is cut
// to what can still be sent, not sent to overflow.
func (t *turn) fitResult(content string, n int) string {
	t.a.awaitWindow(t.a.o.Cancellable.Context())
	window := t.a.ContextWindow()
	if window <= 0 {
		return content
	}
	var fixed, current int
	t.sess.View(func(msgs []session.Message) { // each tool result: no copy of a long history
		system := systemTokens(msgs)
		fixed = system + specTokens(offeredSpecs(t.tools.Offered(), system, window))
		current = currentTurnTokens(msgs)
	})
	// An eighth of the window stays for the answer.
	room := (window - window/8 - fixed - current) / max(n, 1)
	tokens := max(min(window*resultShare/100, room), minResultTokens)
	return tool.Truncate(content, tokens*7/2)
}

// minFoldTokens is the least a compaction folds that it is worth a summary.
const minFoldTokens = 256

// shrinkResults answers an overflow that compacting cannot: it cuts the
// largest tool result of the current turn by what the server counted
// over the window (its tokenizer may count far more than the estimate),
// down to a stub at the least. False when there is nothing left to cut.
func (t *turn) shrinkResults(err error) bool {
	counted, window := llm.PromptTokensIn(err), t.a.ContextWindow()
	var (
		target   session.Message
		turnFrom = -1
		estimate int
	)
	t.sess.View(func(msgs []session.Message) {
		estimate = session.EstimateTokens(session.Sent(msgs)) + specTokens(offeredSpecs(t.tools.Offered(), systemTokens(msgs), window))
		turnFrom = currentTurnStart(msgs)
		for _, m := range msgs[max(turnFrom, 0):] {
			if m.Role == session.RoleTool && len(m.Content) > len(target.Content) {
				target = m
			}
		}
	})
	if turnFrom < 0 || target.ToolCallID == "" || len(target.Content) <= len(resultStub) {
		return false
	}
	// How many of the server's tokens one estimated token is.
	ratio := 1.0
	if counted > estimate && estimate > 0 {
		ratio = float64(counted) / float64(estimate)
	}
	have := float64(session.EstimateTokens([]session.Message{target})) * ratio
	over := have / 2 // the server named no count: halve it
	if counted > 0 && window > 0 {
		over = float64(counted-(window-window/8)) + 32
	}
	keep := int((have - over) / ratio) // estimated tokens
	content := resultStub
	if keep >= minResultTokens {
		content = tool.Truncate(target.Content, keep*7/2)
	}
	if len(content) >= len(target.Content) {
		content = resultStub
	}
	_ = t.sess.UpdateToolResult(target.ToolCallID, func(m *session.Message) { m.Content = content })
	note := "a tool result was cut to fit the context window"
	if counted > 0 {
		note += fmt.Sprintf(" (the server counted %d tokens for the request)", counted)
	}
	t.emit(listener.Notice{Origin: t.origin, Text: note})
	return true
}

// resultStub stands for a tool result too large for the window at all.
const resultStub = "(the result was too large for the model's context window and was left out; ask for a smaller part)"

// minResultTokens is what a result keeps however full the turn is: its
// head, and the note that it was cut.
const minResultTokens = 128

// resultShare is the percentage of the window one tool result may take.
const resultShare = 25

// Compact starts a turn that only compacts the history (/compact), with
// instructions on what the summary should keep. It waits for a running
// turn, is cancelled like one, and fails with ErrNothingToCompact when
// there is no earlier turn to fold.
func (a *Agent) Compact(ctx context.Context, instructions string) *Turn {
	id := a.nextTurn()
	return &Turn{ID: id, run: func() Outcome {
		a.runMu.Lock()
		defer a.runMu.Unlock()
		a.arm(ctx, id)
		res, err := a.turn(ctx, id, func(t *turn) error {
			return t.compact(true, instructions, a.ContextWindow(), false)
		})
		return Outcome{Turn: id, Result: res, Err: err}
	}}
}
