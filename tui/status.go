package tui

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// statusView is the bottom line: model, steps, tokens, context, state.
func (m *Model) statusView() string {
	if own := m.statusLine.shown; own != "" {
		// The person's line, with what a running turn must say.
		parts := []string{own}
		if m.busy {
			parts = append(parts, m.spin.View()+" "+cmp.Or(m.live.state, "waiting"), "esc/ctrl+c cancels")
		}
		return m.st.status.Render(truncateWidth(strings.Join(parts, " · "), m.width))
	}
	parts := []string{m.st.statusHi.Render(m.app.Model())}
	if m.app.Planning() {
		parts = append(parts, m.st.inject.Render("plan mode")+" (shift+tab leaves)")
	}
	if m.agentName != "" {
		parts = append(parts, "agent "+visibleLine(m.agentName))
	}
	if sl := m.app.StepLimit(); sl != nil && sl.Max() > 0 {
		parts = append(parts, fmt.Sprintf("steps %d/%d", min(m.steps, sl.Max()), sl.Max()))
	}
	if m.usage.spent.in+m.usage.spent.out > 0 {
		tokens := fmt.Sprintf("↑%s ↓%s", human(m.usage.spent.in), human(m.usage.spent.out))
		if c := m.usage.spent.costLabel(); c != "" {
			tokens += " " + c
		}
		parts = append(parts, tokens)
	}
	switch window := m.app.ContextWindow(); {
	case window > 0 && m.usage.contextUsed > 0:
		parts = append(parts, fmt.Sprintf("ctx %s/%s", human(m.usage.contextUsed), human(window)))
	case window > 0:
		parts = append(parts, "ctx "+human(window)) // nothing measured yet
	}
	if j := jobsStatus(m.app.Jobs()); j != "" {
		parts = append(parts, j)
	}
	if next := m.usage.nextRequest(m.app, m.price, m.input.value(), m.busy); next != "" {
		parts = append(parts, next)
	}
	if m.bang != nil {
		parts = append(parts, m.spin.View()+" running your command · ctrl+c stops it")
	} else if isBangLine(m.input.value()) {
		parts = append(parts, m.st.warn.Render("! shell mode")+": runs as you, output goes with your next message")
	}
	if m.busy {
		state := m.live.state
		if state == "" {
			state = "waiting"
		}
		if strings.HasPrefix(state, "retrying") {
			parts = append(parts, m.spin.View()+" "+state) // its own clock, not the turn's
		} else {
			parts = append(parts, m.spin.View()+" "+state+" "+elapsed(m.now(), m.started))
		}
		parts = append(parts, "esc/ctrl+c cancels")
	}
	return m.st.status.Render(truncateWidth(strings.Join(parts, " · "), m.width))
}

func elapsed(now, started time.Time) string {
	d := now.Sub(started)
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func human(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
