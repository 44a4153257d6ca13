package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// Approvals asks the person at the keyboard whether a tool may run. It is
// the tool.Approver of the agent's tool set: Approve runs on the agent's
// goroutine, shows the request in the program and waits for the answer,
// or for the turn to be cancelled (Ctrl+C while asking cancels the turn).
type Approvals struct {
	mu   sync.Mutex
	send func(tea.Msg)
}

// NewApprovals returns an Approver to give the tool set; Run connects it.
func NewApprovals() *Approvals { return &Approvals{} }

func (a *Approvals) connect(send func(tea.Msg)) {
	a.mu.Lock()
	a.send = send
	a.mu.Unlock()
}

// Approve implements tool.Approver.
func (a *Approvals) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	a.mu.Lock()
	send := a.send
	a.mu.Unlock()
	if send == nil {
		return tool.Decision{Verdict: tool.Deny, Reason: "no one is at the keyboard to approve it"}, nil
	}
	reply := make(chan tool.Decision, 1)
	send(approvalMsg{req: r, reply: reply})
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
}

type approvalMsg struct {
	req   tool.Request
	reply chan<- tool.Decision
}

// asking is a pending approval; reasoning is true while the person types
// why they said no.
type asking struct {
	approvalMsg
	reasoning bool
}

func (m *Model) onApproval(msg approvalMsg) {
	m.asking = &asking{approvalMsg: msg}
	m.live.state = "waiting for your approval"
	m.notice = ""
}

// approvalKey answers the pending approval; false lets the key through
// (to the input, while the reason is typed).
func (m *Model) approvalKey(key string) bool {
	a := m.asking
	if a.reasoning {
		switch key {
		case "enter":
			reason := strings.TrimSpace(m.input.value())
			if reason == "" {
				reason = "the user declined"
			}
			m.input.clear()
			m.answer(tool.Decision{Verdict: tool.Deny, Reason: "the user declined: " + reason}, "✗ declined: "+reason)
			return true
		case "esc":
			a.reasoning = false
			m.input.clear()
			return true
		}
		return false
	}
	switch key {
	case "y", "enter":
		m.answer(tool.Decision{Verdict: tool.Allow}, "")
	case "a":
		m.answer(tool.Decision{Verdict: tool.AllowAlways}, fmt.Sprintf("✓ %s allowed for the rest of this session", a.req.Tool))
	case "n":
		m.answer(tool.Decision{Verdict: tool.Deny, Reason: "the user declined"}, "✗ declined")
	case "t":
		a.reasoning = true
		m.input.clear()
	default:
		return true // other keys do nothing while asking
	}
	return true
}

func (m *Model) answer(d tool.Decision, note string) {
	m.asking.reply <- d
	m.asking = nil
	m.live.state = "running"
	if note != "" {
		m.print(m.noticeBlock(m.st.notice, "  "+note))
	}
}

// approvalView shows what the tool will do and the choices.
func (m *Model) approvalView() string {
	a := m.asking
	if a == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(m.st.warn.Render("? "+a.req.Tool+" wants to: ") + listener.VisibleString(truncateWidth(a.req.Review.Summary, m.width-20)))
	if d := a.req.Review.Detail; d != "" && d != a.req.Review.Command {
		lines := strings.Split(strings.TrimRight(listener.VisibleString(d), "\n"), "\n")
		const most = 24
		shown := lines
		if len(shown) > most {
			shown = shown[:most]
		}
		for _, l := range shown {
			style := m.st.dim
			switch {
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				style = m.st.toolOK
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				style = m.st.err
			}
			b.WriteString("\n  " + style.Render(truncateWidth(l, m.width-2)))
		}
		if len(lines) > most {
			b.WriteString("\n  " + m.st.hint.Render(fmt.Sprintf("… %d more lines of the diff", len(lines)-most)))
		}
	} else if c := a.req.Review.Command; c != "" {
		b.WriteString("\n  " + m.st.toolName.Render("$ ") + truncateWidth(listener.VisibleString(c), m.width-4))
	}
	if a.reasoning {
		b.WriteString("\n" + m.st.hint.Render("type why, then enter (esc goes back)"))
	} else {
		b.WriteString("\n" + m.st.statusHi.Render("[y]es  [a]lways for "+a.req.Tool+"  [n]o  [t]ell it why  · ctrl+c cancels the turn"))
	}
	return b.String()
}
