package tui

import (
	"fmt"
	"strings"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm/pricing"
	"github.com/chatrepl/chat/session"
)

// spent adds up what completions used and cost: the session's, and the
// current (or last) turn's.
type spent struct {
	in, out, cached int
	cost            float64
	unpriced        bool // some completion had no price: no total is shown
}

func (s *spent) add(e listener.Usage) {
	s.in += e.Prompt
	s.out += e.Completion
	s.cached += e.Cached
	s.cost += e.Cost
	s.unpriced = s.unpriced || !e.Priced
}

// costLabel is the cost as the status bar shows it ("" when unknown).
func (s spent) costLabel() string {
	if s.unpriced || s.in+s.out == 0 {
		return ""
	}
	return pricing.Format(s.cost)
}

// add counts a completion for the session, the turn and its model.
func (u *usageState) add(e listener.Usage) {
	u.spent.add(e)
	u.turnSpent.add(e)
	if e.Model != "" {
		if u.byModel == nil {
			u.byModel = map[string]*spent{}
		}
		if u.byModel[e.Model] == nil {
			u.byModel[e.Model] = &spent{}
			u.models = append(u.models, e.Model)
		}
		u.byModel[e.Model].add(e)
	}
}

// reset starts counting again (a new or another session).
func (u *usageState) reset() {
	u.spent, u.turnSpent = spent{}, spent{}
	u.byModel, u.models = nil, nil
}

// nextRequest is what sending the input now would carry: the request as
// it stands plus the input, in tokens, and its cost where the model is
// priced. The history's part is computed once per history and model.
func (u *usageState) nextRequest(a App, price func(string, session.Usage) (float64, bool), text string, busy bool) string {
	if busy || strings.TrimSpace(text) == "" || strings.HasPrefix(text, "/") || isBangLine(text) {
		return ""
	}
	key := fmt.Sprintf("%d %s", a.Session().Len(), a.Model())
	if u.nextBase.key != key {
		u.nextBase.key, u.nextBase.tokens = key, a.ContextSize()
	}
	tokens := u.nextBase.tokens + session.TextTokens(len(text))
	label := "next ~" + human(tokens)
	if price != nil {
		if usd, ok := price(a.Model(), session.Usage{Prompt: tokens}); ok {
			label += " " + pricing.Format(usd)
		}
	}
	return label
}

// costReport is /cost: what the session and its last turn used and cost,
// and what the next request carries, by part.
func (u *usageState) report(a App, price func(string, session.Usage) (float64, bool)) string {
	var b strings.Builder
	line := func(name string, s spent) {
		fmt.Fprintf(&b, "%-8s input %s", name, human(s.in))
		if s.cached > 0 {
			fmt.Fprintf(&b, " (cached %s)", human(s.cached))
		}
		fmt.Fprintf(&b, " · output %s", human(s.out))
		switch {
		case s.in+s.out == 0:
		case s.unpriced:
			b.WriteString(" · no price known for this model (tokens only)")
		default:
			b.WriteString(" · " + pricing.Format(s.cost))
		}
		b.WriteString("\n")
	}
	line("session", u.spent)
	line("last turn", u.turnSpent)
	if len(u.models) > 1 {
		// The small model's share (titles, summaries, the synthesized
		// answer) beside the model's.
		for _, m := range u.models {
			line("  "+m, *u.byModel[m])
		}
	}
	p := a.ContextReport()
	fmt.Fprintf(&b, "next request ~%s tokens: system %s, tools %s, summary %s, history %s (attachments %s)",
		human(p.System+p.Tools+p.Summary+p.History), human(p.System), human(p.Tools), human(p.Summary), human(p.History), human(p.Files))
	if price != nil {
		if usd, ok := price(a.Model(), session.Usage{Prompt: p.System + p.Tools + p.Summary + p.History}); ok {
			b.WriteString(" · its input " + pricing.Format(usd))
		}
	}
	if src := a.PriceSource(a.Model()); src != "" {
		b.WriteString("\nprices: " + src)
	}
	return b.String()
}
