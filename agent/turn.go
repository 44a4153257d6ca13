package agent

import (
	"cmp"
	"errors"
	"fmt"
	"sync"

	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/internal/rescue"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/llm/emit"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/synthesizer"
	"github.com/chatrepl/chat/tool"
)

// turn is the state of one Run or Resume.
type turn struct {
	a       *Agent
	sess    *session.Session // fixed for the turn, whatever the host changes
	model   string
	tools   *tool.Set
	origin  listener.Origin
	request string // what the person asked, for the synthesizer
	result  Result
	// stopContinues counts the Stop hooks that sent the turn back to work.
	stopContinues int
}

func (t *turn) emit(e listener.Event) { t.a.o.Listeners.Emit(e) }

func (t *turn) appendUser(m session.Message, midLoop bool) { t.appendInput(m, midLoop, 0) }

// appendInput appends a user message; input is the Interloper item it
// came from (0: none).
func (t *turn) appendInput(m session.Message, midLoop bool, input uint64) {
	m.MidTurn = midLoop
	t.sess.AppendInput(m)
	t.emit(listener.UserTurn{Origin: t.origin, Content: m.Content, MidLoop: midLoop, Input: input})
}

// loop runs completions until the model answers without tools and nothing
// waits in the Interloper.
func (t *turn) loop() error {
	o := &t.a.o
	for {
		if err := o.Cancellable.Check(); err != nil {
			return err
		}
		msg, err := t.complete()
		if err != nil {
			return err
		}
		if len(msg.ToolCalls) == 0 {
			if t.drainInterloper() || t.stopHook() {
				continue
			}
			t.result.Content = msg.Content
			return nil
		}
		if err := t.runTools(msg.ToolCalls); err != nil {
			return err
		}
		t.drainInterloper()
	}
}

// maxShrinks bounds the retries of one completion whose tool results are
// cut to fit.
const maxShrinks = 6

// complete streams one completion and appends the assistant message. On
// failure a partial answer that was already shown is kept, marked
// interrupted, so history matches what the person saw.
func (t *turn) complete() (session.Message, error) {
	if err := t.fit(); err != nil {
		return session.Message{}, err
	}
	resp, err := t.completion()
	if errors.Is(err, llm.ErrContextExceeded) && resp.Content == "" {
		// The estimate fell short or the window was unknown: compact to
		// the size the server names, and try once more.
		cerr := t.overflowed(err)
		var tooLarge *TooLargeError
		if cerr != nil && (!errors.As(cerr, &tooLarge) || !t.shrinkResults(err)) {
			return session.Message{}, cerr
		}
		resp, err = t.completion()
		// Still too large: the current turn's results are cut by the
		// server's own count, as often as it takes, down to a stub.
		for i := 0; i < maxShrinks && errors.Is(err, llm.ErrContextExceeded) && resp.Content == "" && t.shrinkResults(err); i++ {
			resp, err = t.completion()
		}
	}
	if err != nil {
		if resp.Content != "" {
			partial := session.Assistant(resp.Content)
			partial.Interrupted = true
			t.sess.Append(partial)
			emit.Message(t.a.o.Listeners, t.origin, partial, t.modelName(), nil)
		}
		if errors.Is(err, llm.ErrContextExceeded) {
			return session.Message{}, &TooLargeError{Err: err, Turn: currentTurnTokens(t.sess.Messages()), Window: t.a.ContextWindow()}
		}
		return session.Message{}, err
	}
	msg := emit.AssistantMessage(resp)
	o := &t.a.o
	// An empty answer is shown as such but not kept: a strict server
	// refuses an assistant message with neither content nor tool calls.
	if msg.Content != "" || len(msg.ToolCalls) > 0 {
		t.sess.Append(msg)
	}
	emit.Message(o.Listeners, t.origin, msg, t.modelName(), t.price())
	return msg, nil
}

// completion streams one completion of the history as it is now and records
// what the server counted of it.
func (t *turn) completion() (llm.Response, error) {
	o := &t.a.o
	t.a.cfgMu.Lock()
	// What is sent, not the whole history: a long session's copy per step
	// was most of what it allocated.
	summary, _ := t.sess.LatestSummary()
	req := llm.Request{Messages: t.sess.Sent(), Model: t.model, NoStream: o.NoStream, Temperature: o.Temperature,
		TopP: o.TopP, MaxTokens: o.MaxTokens, Schema: o.Schema}
	t.a.cfgMu.Unlock()
	req.Tools = t.a.specsFor(t.tools, req.Messages)
	handler := emit.Handler(o.Listeners, t.origin, o.Cancellable)
	settleFirst(&handler, t.sess)
	var hold *rescue.Holdback
	if len(req.Tools) > 0 && (o.NoRescue == nil || !o.NoRescue(cmp.Or(req.Model, o.Client.Model()))) {
		hold = holdBack(&handler)
	}
	resp, err := o.Client.Complete(o.Cancellable.Context(), req, handler)
	if resp.Usage != nil {
		var cost float64
		if price := t.price(); price != nil {
			cost, _ = price(*resp.Usage)
		}
		o.Spend.Add(resp.Usage.Total, cost)
	}
	if hold != nil {
		resp = t.rescue(resp, err, req.Tools, hold)
	}
	if resp.Usage != nil {
		t.result.Usage = t.result.Usage.Add(*resp.Usage)
		if resp.Usage.Prompt > 0 && len(req.Messages) > 0 {
			t.a.cfgMu.Lock()
			t.a.mark = sizeMark{last: req.Messages[len(req.Messages)-1].ID, summary: summary.ID, tokens: resp.Usage.Prompt}
			t.a.cfgMu.Unlock()
		}
	}
	return resp, err
}

// settleFirst makes h settle the session before its first chunk: the
// request went out while its question was being saved, and what is shown
// of an answer must have its question on disk.
func settleFirst(h *llm.Handler, s *session.Session) {
	show, settled := h.Chunk, false
	h.Chunk = func(ch llm.Chunk) error {
		if !settled {
			settled = true
			s.Settle()
		}
		return show(ch)
	}
}

// runTools runs calls in order; a run of calls to tools that may run
// concurrently (sub-agents) runs at the same time, their results kept in
// call order. The step budget and the cancellable are checked before each
// call; a call cut short by Cancel leaves no result (the placeholder
// fills it).
func (t *turn) runTools(calls []session.ToolCall) error {
	for i := 0; i < len(calls); {
		n := 1
		for i+n < len(calls) && t.concurrent(calls[i]) && t.concurrent(calls[i+n]) {
			n++
		}
		if err := t.runBatch(calls[i : i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

func (t *turn) concurrent(c session.ToolCall) bool {
	tl, ok := t.tools.Lookup(c.Name)
	if !ok {
		return false
	}
	cc, ok := tl.(tool.Concurrent)
	return ok && cc.Concurrent()
}

// runBatch runs calls at the same time (one call: in place).
func (t *turn) runBatch(calls []session.ToolCall) error {
	o := &t.a.o
	for _, c := range calls {
		t.emit(listener.ToolCall{Origin: t.origin, ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		if err := o.StepLimit.Tick(); err != nil {
			return err
		}
		if err := o.Spend.Check(); err != nil {
			return err
		}
	}
	if err := o.Cancellable.Check(); err != nil {
		return err
	}
	results := make([]tool.Result, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		ctx := tool.WithProgress(listener.WithOrigin(withCaller(o.Cancellable.Context(), t.a), t.origin), func(text string) {
			t.emit(listener.ToolOutput{Origin: t.origin, ID: c.ID, Name: c.Name, Text: text})
		})
		ctx = tool.WithStart(t.hookCtx(tool.WithCallID(ctx, c.ID)), func() { t.sess.MarkStarted(c.ID) })
		if len(calls) == 1 {
			results[i] = t.tools.Dispatch(ctx, c.Name, c.Arguments)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = t.tools.Dispatch(ctx, c.Name, c.Arguments)
		}()
	}
	wg.Wait()
	if err := o.Cancellable.Check(); err != nil {
		return err
	}
	for i, c := range calls {
		res := results[i]
		res.Content = t.fitResult(res.Content, len(calls))
		msg := session.ToolResult(c, res.Content)
		if res.Err != nil {
			msg = session.ToolError(c, res.Content, res.ErrType)
		}
		t.sess.Append(msg)
		t.emit(listener.ToolResult{Origin: t.origin, ID: c.ID, Name: c.Name, Content: res.Content, Err: res.Err})
		if p, ok := planEvent(t.origin, c, res.Err != nil); ok {
			t.emit(p)
		}
	}
	return nil
}

// drainInterloper moves what the person typed mid-turn into history.
func (t *turn) drainInterloper() bool {
	items := t.a.o.Interloper.Drain()
	for _, it := range items {
		t.appendInput(session.User(it.Text), true, it.ID)
	}
	return len(items) > 0
}

// end heals history and reports how the turn ended.
func (t *turn) end(err error) error {
	o := &t.a.o
	t.result.HealedToolCallIDs = append(t.result.HealedToolCallIDs, t.sess.Heal()...)
	var cancelled *control.CancelledError
	switch {
	case errors.As(err, &cancelled):
		return t.cancelled(cancelled)
	case o.Cancellable.Cancelled():
		// The stream or a tool failed because the context was cancelled.
		return t.cancelled(o.Cancellable.Check().(*control.CancelledError))
	case errors.Is(err, control.ErrStepLimitExceeded), errors.Is(err, control.ErrBudgetExceeded):
		return t.synthesize(err)
	}
	t.emit(listener.Error{Origin: t.origin, Err: err})
	return err
}

func (t *turn) cancelled(err *control.CancelledError) error {
	t.result.Interrupted = true
	t.result.InterruptReason = err.Reason
	t.emit(listener.Cancelled{Origin: t.origin, Reason: err.Reason})
	return err
}

// synthesize hands a turn whose budget ran out to the synthesizer.
func (t *turn) synthesize(limit error) error {
	o := &t.a.o
	t.emit(listener.FallbackNotice{Origin: t.origin, Reason: budgetReason(limit) + "; synthesizing an answer from what it gathered"})
	// The synthesizer reads what the model was working from: the latest
	// summary (if any) and what came after it.
	evidence := t.sess.Messages()
	if _, at := session.LatestSummary(evidence); at >= 0 {
		evidence = evidence[at:]
	}
	id := listener.SynthesizerID(o.ID)
	t.a.awaitWindow(o.Cancellable.Context()) // the transcript is sized to it
	var tasks string
	if p, ok := LatestPlan(t.sess.Messages()); ok {
		tasks = p.Summary()
	}
	model := cmp.Or(o.SmallModel, t.model)
	msg, err := synthesizer.Run(o.Cancellable.Context(), synthesizer.Options{
		Client: o.Client, Model: model, Listeners: o.Listeners.ForSubAgent(id),
		Cancellable: o.Cancellable, Turn: t.origin.Turn, NoStream: o.NoStream, Window: t.a.ContextWindow(), Price: t.priceOf(model),
		Tasks: tasks,
	}, t.request, evidence)
	if msg.Usage != nil {
		t.result.Usage = t.result.Usage.Add(*msg.Usage)
	}
	if err != nil {
		var cancelled *control.CancelledError
		if errors.As(err, &cancelled) {
			return t.cancelled(cancelled)
		}
		err = fmt.Errorf("%s and %w", budgetReason(limit), err)
		t.emit(listener.Error{Origin: t.origin, Err: err})
		return err
	}
	t.sess.Append(msg)
	t.result.Content, t.result.Synthesized = msg.Content, true
	return nil
}

// answerStarted answers the pending calls that had started when an
// earlier process stopped (they never run twice) and returns the others,
// which may run now.
func (t *turn) answerStarted(pending []session.ToolCall) []session.ToolCall {
	started, fresh := session.SplitStarted(pending)
	for _, c := range started {
		//lint:ignore ST1005 this sentence is what the model reads as the call's result
		err := errors.New(session.InterruptedWhileRunning)
		t.emit(listener.ToolCall{Origin: t.origin, ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		t.sess.Append(session.ToolError(c, "Error: "+err.Error(), "interrupted"))
		t.emit(listener.ToolResult{Origin: t.origin, ID: c.ID, Name: c.Name, Content: "Error: " + err.Error(), Err: err})
	}
	return fresh
}

// price is the turn model's price as emit wants it.
func (t *turn) price() emit.Price { return t.priceOf(t.model) }

// modelName is the model the turn's requests name.
func (t *turn) modelName() string { return cmp.Or(t.model, t.a.o.Client.Model()) }

// priceOf prices a completion of model ("": the client's).
func (t *turn) priceOf(model string) emit.Price {
	price := t.a.o.Price
	if price == nil {
		return nil
	}
	model = cmp.Or(model, t.a.o.Client.Model())
	return func(u session.Usage) (float64, bool) { return price(model, u) }
}

// budgetReason says which budget ran out.
func budgetReason(limit error) string {
	var steps *control.StepLimitError
	var spend *control.BudgetError
	switch {
	case errors.As(limit, &steps):
		return fmt.Sprintf("the agent used its %d steps", steps.Max)
	case errors.As(limit, &spend) && spend.Cost:
		return fmt.Sprintf("the turn spent its budget of $%.4g ($%.4g so far)", spend.Limit, spend.Spent)
	case errors.As(limit, &spend):
		return fmt.Sprintf("the turn used its budget of %.0f tokens (%.0f so far)", spend.Limit, spend.Spent)
	}
	return "the turn's budget ran out"
}
