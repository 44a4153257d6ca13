package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// DefaultCompactAt is the share of the context window past which a request
// is compacted first.
const DefaultCompactAt = 0.8

// keepShare is the share of the window that what is always sent (system
// prompt, tools) and the verbatim recent turns may take after a compaction;
// the current turn is kept whatever its size.
const keepShare = 0.35

// ErrNothingToCompact is a compaction with no earlier turn to fold.
var ErrNothingToCompact = errors.New("nothing to compact: the conversation is only the current exchange")

// TooLargeError is a request the server refused as larger than its window
// (Err) with nothing earlier left to compact: the current message and what
// its turn gathered are too large on their own.
type TooLargeError struct {
	Err error
	// Turn is the estimated tokens of the current turn (the message and
	// what its turn gathered), Window the window when known.
	Turn, Window int
	// Summary: a summary of earlier turns is sent too.
	Summary bool
}

func (e *TooLargeError) Error() string {
	if e.Window > 0 && e.Turn < e.Window*3/4 {
		// The message is not to blame: what is always sent and the rest
		// leave it no room.
		with := "the system prompt and the tools"
		if e.Summary {
			with = "the system prompt, the tools and the summary"
		}
		return fmt.Sprintf("%v; this turn (~%d tokens) fits the %d-token window, but with %s it does not: "+
			"start a new session (/new in the REPL; without --continue in print mode), or use a larger window (llama.cpp's --ctx-size; --context-window tells chat the size)", e.Err, e.Turn, e.Window, with)
	}
	return e.Err.Error() + "; nothing earlier is left to summarize, so this message and what its turn gathered are too large on their own: " +
		"shorten it or attach less, or use a larger window (llama.cpp's --ctx-size; --context-window tells chat the size)"
}

func (e *TooLargeError) Unwrap() error { return e.Err }

// sizeMark is what the server last counted: the prompt tokens of the
// request that ended with message last, under summary (the compaction in
// effect then).
type sizeMark struct {
	last, summary string
	tokens        int
}

// ContextWindow is the model's context size, 0 while unknown.
func (a *Agent) ContextWindow() int { return int(a.window.Load()) }

// ContextSize estimates the tokens the next request will carry: what the
// server counted for the last request plus an estimate of what was added
// since, cross-checked with chat's own estimate of all of it (the larger
// wins: a server that counts only what its prompt cache did not hold
// reports far too little, and its refusal would be the first sign).
func (a *Agent) ContextSize() int {
	a.cfgMu.Lock()
	s, tools := a.o.Session, a.o.Tools
	mark := a.mark
	a.cfgMu.Unlock()
	summary, _ := s.LatestSummary()
	sent := s.Sent()
	own := session.EstimateTokens(answered(sent)) + specTokens(a.specsFor(tools, sent))
	if mark.tokens > 0 && mark.summary == summary.ID {
		for i := len(sent) - 1; i >= 0; i-- {
			if sent[i].ID == mark.last {
				return max(mark.tokens+session.EstimateTokens(answered(sent[i+1:])), own)
			}
		}
	}
	return own
}

// ContextParts is the estimated make-up of the next request, in tokens.
type ContextParts struct {
	// System includes Project, the project's instructions (AGENTS.md);
	// History includes Files, the attachments.
	System, Project, Tools, Summary, History, Files, Window int
	Summarized                                              int // messages the summary stands for
	// Offered of All tools go with the request; Brief: in their short
	// form (the window is small).
	Offered, All int
	Brief        bool
}

// ContextReport breaks the next request down (/context).
func (a *Agent) ContextReport() ContextParts {
	a.cfgMu.Lock()
	s, tools, project := a.o.Session, a.o.Tools, a.o.Project
	a.cfgMu.Unlock()
	msgs := s.Messages()
	specs := a.specsFor(tools, session.Sent(msgs))
	p := ContextParts{Window: a.ContextWindow(), Tools: specTokens(specs), Project: session.TextTokens(len(project)),
		Offered: len(specs), All: len(tools.Offered())}
	if full := fullSpecs(tools.Offered()); len(specs) != len(full) || specTokens(specs) != specTokens(full) {
		p.Brief = true
	}
	summary, at := session.LatestSummary(msgs)
	if at >= 0 {
		p.Summary = session.EstimateTokens([]session.Message{summary})
		for _, m := range msgs[:at] {
			if m.Role != session.RoleSystem {
				p.Summarized++
			}
		}
	}
	for _, m := range answered(session.Sent(msgs)) {
		switch {
		case m.Role == session.RoleSystem:
			p.System += session.EstimateTokens([]session.Message{m})
		default:
			p.History += session.EstimateTokens([]session.Message{m})
			if len(m.Files) > 0 {
				bare := m
				bare.Files = nil
				p.Files += session.EstimateTokens([]session.Message{m}) - session.EstimateTokens([]session.Message{bare})
			}
		}
	}
	if at >= 0 { // the summary rides in the system message
		p.System = max(p.System-p.Summary, 0)
	}
	return p
}

// specTokens estimates what tools take of a request.
func specTokens(specs []llm.ToolSpec) int {
	size := 0
	for _, t := range specs {
		size += len(t.Name) + len(t.Description) + len(t.Parameters) + 40
	}
	return session.TextTokens(size)
}

// briefShare is the most of a window (percent) the fixed part of a request
// (the system prompt and the tools) may take before the tools are offered
// in their short form.
const briefShare = 50

// fullSpecs are tools as offered with a window that has room.
func fullSpecs(tools []tool.Tool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(tools))
	for _, t := range tools {
		out = append(out, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	return out
}

// offeredSpecs are the tools as a request offers them: whole, or, when
// with system (tokens) they would take more than briefShare of window, in
// their short form (a tool without one goes as it is; one whose short
// form says so is left out). A window of 0 (unknown) offers them whole.
func offeredSpecs(tools []tool.Tool, system, window int) []llm.ToolSpec {
	full := fullSpecs(tools)
	if window <= 0 || specTokens(full)+system <= window*briefShare/100 {
		return full
	}
	out := make([]llm.ToolSpec, 0, len(tools))
	for i, t := range tools {
		b, ok := t.(tool.Briefer)
		if !ok {
			out = append(out, full[i])
			continue
		}
		if desc, params, offered := b.Brief(); offered {
			out = append(out, llm.ToolSpec{Name: t.Name(), Description: desc, Parameters: params})
		}
	}
	return out
}

// systemTokens estimates the system message at the head of msgs.
func systemTokens(msgs []session.Message) int {
	if len(msgs) > 0 && msgs[0].Role == session.RoleSystem {
		return session.EstimateTokens(msgs[:1])
	}
	return 0
}

// specsFor are the tools the next request of s offers.
func (a *Agent) specsFor(tools *tool.Set, sent []session.Message) []llm.ToolSpec {
	return offeredSpecs(tools.Offered(), systemTokens(sent), a.ContextWindow())
}

// answered drops the messages marked unanswered: they are never sent.
func answered(msgs []session.Message) []session.Message {
	out := make([]session.Message, 0, len(msgs))
	for _, m := range msgs {
		if !m.Unanswered {
			out = append(out, m)
		}
	}
	return out
}

// compactAt is the size past which the next request is compacted first,
// 0 when that is off or the window is unknown.
func (a *Agent) compactAt() int {
	share := DefaultCompactAt
	if a.o.CompactAt != nil {
		share = *a.o.CompactAt
	}
	if share <= 0 || share > 1 {
		return 0
	}
	return int(float64(a.ContextWindow()) * share)
}

// fit compacts before a request that would pass the threshold. A request
// whose irreducible part alone (what is always sent and the question)
// does not fit the window is not sent: the person is told, before a
// server refuses it.
func (t *turn) fit() error {
	// The window decides even the first request: which form of the tools
	// it offers.
	if t.a.windowIsPending() {
		t.a.awaitWindow(t.a.o.Cancellable.Context())
	}
	limit, window, size := t.a.compactAt(), t.a.ContextWindow(), t.a.ContextSize()
	if limit == 0 || size <= limit {
		return nil
	}
	// Past the window's room for an answer the alternative is a refusal:
	// whatever history exists is folded, however little.
	err := t.compact(false, "", window, window > 0 && size > window-window/8)
	if err != nil && !errors.Is(err, ErrNothingToCompact) {
		return err
	}
	if window > 0 {
		if fixed := t.irreducible(); fixed > window {
			_, at := t.sess.LatestSummary()
			return &TooLargeError{Err: fmt.Errorf("%w: what every request carries and this message take ~%d tokens of the %d-token window, so it was not sent", llm.ErrContextExceeded, fixed, window),
				Turn: currentTurnTokens(t.sess.Messages()), Window: window, Summary: at >= 0}
		}
	}
	return nil
}

// irreducible estimates what no compaction or cut can take out of the next
// request: the system prompt, the tools as offered and the question of
// the turn. (Tool results are cut to fit; chat's estimate may exceed the
// server's count, so the rest is the server's to judge.)
func (t *turn) irreducible() int {
	var n int
	t.sess.View(func(msgs []session.Message) {
		system := systemTokens(msgs)
		n = system + specTokens(offeredSpecs(t.tools.Offered(), system, t.a.ContextWindow()))
		if i := currentTurnStart(msgs); i >= 0 {
			n += session.EstimateTokens(msgs[i : i+1])
		}
	})
	return n
}

// overflowed handles a request the server refused as too large: it learns
// the window the error names, compacts to fit it and says whether to try
// once more.
func (t *turn) overflowed(err error) error {
	t.a.awaitWindow(t.a.o.Cancellable.Context())
	if n := llm.ContextWindowIn(err); n > 0 && (t.a.ContextWindow() == 0 || n < t.a.ContextWindow()) {
		t.a.SetContextWindow(n)
	}
	window := t.a.ContextWindow()
	if window == 0 { // the server named none: it is smaller than what was sent
		window = t.a.ContextSize()
	}
	cerr := t.compact(false, "", window, true)
	if errors.Is(cerr, ErrNothingToCompact) {
		_, at := t.sess.LatestSummary()
		return &TooLargeError{Err: err, Turn: currentTurnTokens(t.sess.Messages()), Window: t.a.ContextWindow(), Summary: at >= 0}
	}
	return cerr
}

// currentTurnTokens estimates the last question and what followed it.
func currentTurnTokens(msgs []session.Message) int {
	if i := currentTurnStart(msgs); i >= 0 {
		return session.EstimateTokens(msgs[i:])
	}
	return 0
}

// currentTurnStart is the index of the last question that was answered
// or is being answered (-1: none).
func currentTurnStart(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == session.RoleUser && !msgs[i].Unanswered {
			return i
		}
	}
	return -1
}

// InitPrompt is /init: the model looks at the repository and proposes an
// AGENTS.md through write_file, so the person sees and approves it.
const InitPrompt = `Write an AGENTS.md file for this repository, for coding agents working in it (as Codex's /init does).
First look around with the tools: the layout, the build and test commands (Makefile, package manifests, CI files), the languages and frameworks, the conventions the code follows, and any existing AGENTS.md, CLAUDE.md or README.
Then write AGENTS.md at the repository root with write_file (if one exists, improve it rather than starting over). Keep it short and concrete: how to build, test and lint; the project's structure; its code style and conventions; what to check before a change is done. No generic advice.`

// Report is /context: what the next request carries, by part.
// The headline is the sum of the parts (estimates); when the server's own
// count differs, it is said beside it.
func (p ContextParts) Report(counted int, projectFiles []string) string {
	var b strings.Builder
	total := p.System + p.Tools + p.Summary + p.History
	if p.Window > 0 {
		fmt.Fprintf(&b, "context: ~%d of %d tokens (%d%%)", total, p.Window, total*100/p.Window)
	} else {
		fmt.Fprintf(&b, "context: ~%d tokens (the model's window is not known; --context-window or context_window sets it)", total)
	}
	fmt.Fprintf(&b, "\n  system   ~%d", p.System)
	if p.Project > 0 {
		fmt.Fprintf(&b, " (of which project instructions ~%d: %s)", p.Project, strings.Join(projectFiles, ", "))
	}
	fmt.Fprintf(&b, "\n  tools    ~%d", p.Tools)
	if p.Brief {
		fmt.Fprintf(&b, " (%d of %d tools, in their short form: the window is small)", p.Offered, p.All)
	}
	if p.Summarized > 0 {
		fmt.Fprintf(&b, "\n  summary  ~%d (stands for %d earlier messages, kept in the session file)", p.Summary, p.Summarized)
	}
	fmt.Fprintf(&b, "\n  history  ~%d", p.History)
	if counted > 0 && ((counted-total)*10 > total || (total-counted)*10 > total) {
		fmt.Fprintf(&b, "\n(estimates; by the server's count of the last request, the next one is ~%d)", counted)
	}
	b.WriteString("\n/compact summarizes the earlier turns")
	return b.String()
}

// SettleWindow waits, as a request would, for the server to say its
// window when it is being asked (the wait AwaitWindow set).
func (a *Agent) SettleWindow(ctx context.Context) { a.awaitWindow(ctx) }

// FixedPart is what every request of a session with tools and system
// carries before the person says anything, at window (0: unknown): the
// tools as offered there, and the estimated tokens of the whole.
func FixedPart(tools []tool.Tool, system string, window int) ([]llm.ToolSpec, int) {
	sys := session.EstimateTokens([]session.Message{session.System(system)})
	specs := offeredSpecs(tools, sys, window)
	return specs, sys + specTokens(specs)
}
