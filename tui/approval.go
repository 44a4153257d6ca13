package tui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
	// one is held while a question is on screen: sub-agents working at
	// the same time ask one after the other.
	one chan struct{}
	// ready is closed once the program first listens.
	ready     chan struct{}
	readyOnce sync.Once
}

// NewApprovals returns an Approver to give the tool set; Run connects it.
func NewApprovals() *Approvals {
	return &Approvals{one: make(chan struct{}, 1), ready: make(chan struct{})}
}

func (a *Approvals) connect(send func(tea.Msg)) {
	a.mu.Lock()
	a.send = send
	a.mu.Unlock()
	if send != nil {
		a.readyOnce.Do(func() { close(a.ready) })
	}
}

// Approve implements tool.Approver.
func (a *Approvals) Approve(ctx context.Context, r tool.Request) (tool.Decision, error) {
	return a.ask(ctx, approvalMsg{req: r})
}

// AskAtIdle asks the person something outside any turn (whether a
// project's hooks may run), once the program is up. decided (may be nil)
// is called with the answer in the program's loop, before it reads the
// next key: what the answer changes holds for anything typed after it.
func (a *Approvals) AskAtIdle(ctx context.Context, r tool.Request, decided func(tool.Decision)) (tool.Decision, error) {
	select {
	case <-a.ready:
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
	return a.ask(ctx, approvalMsg{req: r, idle: true, decided: decided})
}

func (a *Approvals) ask(ctx context.Context, msg approvalMsg) (tool.Decision, error) {
	a.mu.Lock()
	send := a.send
	a.mu.Unlock()
	if send == nil {
		return tool.Decision{Verdict: tool.Deny, Reason: "no one is at the keyboard to approve it"}, nil
	}
	select {
	case a.one <- struct{}{}:
		defer func() { <-a.one }()
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
	reply := make(chan tool.Decision, 1)
	msg.reply = reply
	msg.origin, _ = listener.OriginOf(ctx)
	send(msg)
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		var elsewhere *tool.AnsweredElsewhere
		if errors.As(context.Cause(ctx), &elsewhere) {
			send(withdrawnMsg{reply: reply, said: elsewhere})
		}
		return tool.Decision{}, ctx.Err()
	}
}

type approvalMsg struct {
	req    tool.Request
	reply  chan<- tool.Decision
	origin listener.Origin // the agent and turn that ask
	idle   bool            // asked outside any turn: no turn can be over
	// decided, when set, takes the answer in the program's loop.
	decided func(tool.Decision)
}

// asking is a pending approval; reasoning is true while the person types
// why they said no; top is the first line of the body shown when it is
// taller than the room it has.
type asking struct {
	approvalMsg
	reasoning bool
	top       int
	seenEnd   bool   // the person has had the last line of the body on screen
	focused   bool   // the person moved to it (Tab): it takes keys though the input holds text
	stash     string // the input's text while the reason is typed there ("t")
	// held is an answer key (y, a, n, t) pressed while the prompt takes
	// keys but not yet taken: it answers only if no other key follows
	// within standAlone (a sentence's first letter is not an answer).
	held    string
	heldKey tea.KeyPressMsg
}

// standAlone is how long an answer key must stand alone to answer: a
// person typing a sentence at 5 keys a second presses the next key within
// 200 ms; a deliberate answer is followed by nothing.
const standAlone = 350 * time.Millisecond

// heldKeyMsg comes standAlone after an answer key was held.
type heldKeyMsg struct{ a *asking }

// answerKey is a key that answers a prompt (Enter never does).
func answerKey(key string) bool { return key == "y" || key == "a" || key == "n" || key == "t" }

// onHeldKey answers with the held key if nothing followed it.
func (m *Model) onHeldKey(msg heldKeyMsg) {
	a := m.asking
	if a == nil || a != msg.a || a.held == "" {
		return
	}
	key := a.held
	a.held = ""
	m.approvalKey(key)
}

// releaseHeld gives a held answer key back to the input as typing: a key
// followed it, so it began a sentence.
func (m *Model) releaseHeld() tea.Cmd {
	a := m.asking
	if a == nil || a.held == "" {
		return nil
	}
	k := a.heldKey
	a.held = ""
	m.lastTyped = m.now()
	return m.typeKey(k)
}

func (m *Model) onApproval(msg approvalMsg) {
	// A question from a turn that was cancelled, or is over, is not shown:
	// its tool must not run. A sub-agent asks in its caller's turn.
	tied := msg.origin.Turn != 0
	if !msg.idle && (!m.busy || (tied && (msg.origin.Turn <= m.ignoreUpTo || msg.origin.Turn != m.turn))) {
		msg.reply <- tool.Decision{Verdict: tool.Deny, Reason: "the turn that asked is over"}
		return
	}
	m.asking = &asking{approvalMsg: msg}
	m.live.state = "waiting for your approval"
	m.notice = ""
	_, body, room := m.asking.layout(&m.st, m.width, m.height, lineCount(m.belowApproval()))
	m.asking.clamp(len(body), room)
}

// approvalKey answers the pending approval or scrolls it; false lets the
// key through to the input (the reason being typed, or any other typing,
// which is kept).
func (m *Model) approvalKey(key string) bool {
	a := m.asking
	if a.reasoning {
		switch key {
		case "enter":
			reason := strings.TrimSpace(m.input.value())
			if reason == "" {
				reason = "the user declined"
			}
			m.input.set(a.stash) // what the person had typed comes back
			m.answer(tool.Decision{Verdict: tool.Deny, Reason: "the user declined: " + reason}, "✗ declined: "+reason)
			return true
		case "esc":
			a.reasoning = false
			m.input.set(a.stash)
			return true
		}
		return false
	}
	_, body, room := m.asking.layout(&m.st, m.width, m.height, lineCount(m.belowApproval()))
	a.clamp(len(body), room)
	switch key {
	case "up":
		a.top--
	case "down":
		a.top++
	case "pgup":
		a.top -= room - 1
	case "pgdown":
		a.top += room - 1
	case "home":
		a.top = 0
	case "end":
		a.top = len(body)
	case "y", "a": // never Enter: it is what ends a line of typing
		// Nothing is approved unseen: a first y on a long command shows
		// its end instead.
		if !a.seenEnd {
			m.notice = "that is the end of it: press " + key + " again to approve"
			_, body, room := m.asking.layout(&m.st, m.width, m.height, lineCount(m.belowApproval())) // the notice takes a row
			a.top = len(body)
			a.clamp(len(body), room)
			return true
		}
		switch {
		case key == "a" && len(a.req.Always) > 0:
			m.answer(tool.Decision{Verdict: tool.AllowAlways}, "✓ allowed for "+cmp.Or(a.req.AlwaysScope, "this session")+": "+grantList(a.req.Always))
		case key == "a":
			m.notice = "\"always\" is not offered for this one: it asks every time"
		default:
			m.answer(tool.Decision{Verdict: tool.Allow}, a.req.Granted)
		}
		return true
	case "n":
		m.answer(tool.Decision{Verdict: tool.Deny, Reason: "the user declined"}, "✗ declined")
		return true
	case "t":
		if a.req.NoModel {
			return false // no one to tell: typing, as any other key
		}
		// The reason is typed in the input; what it held is kept aside
		// and comes back after.
		a.reasoning, a.stash = true, m.input.value()
		m.input.set("")
		return true
	default:
		return false // typing: it goes to the input, and is kept
	}
	a.clamp(len(body), room)
	return true
}

func (m *Model) answer(d tool.Decision, note string) {
	if m.asking.decided != nil {
		m.asking.decided(d)
	}
	m.asking.reply <- d
	m.asking = nil
	m.live.state = "running"
	m.notice = ""
	if note != "" {
		m.print(m.blocks().notice(m.st.notice, "  "+listener.VisibleString(note)))
	}
}

func grantList(gs []tool.Grant) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.String())
	}
	return strings.Join(out, ", ")
}

// approvalHead is what is always on screen while asking: what the tool
// wants, the resolved target, why it asks, any warning.
func (a *asking) head(st *styles, width int) []string {
	r := a.req
	width = max(width, 20)
	var head []string
	title := "? " + truncateWidth(visibleLine(r.Tool), 40) + " wants to: "
	if who := a.origin.Agent; isSubAgent(who) {
		title = "? " + truncateWidth(visibleLine(who), 30) + " · " + truncateWidth(visibleLine(r.Tool), 40) + " wants to: "
	}
	summary := r.Review.Summary
	if r.Review.Command != "" {
		summary = "run this command in " + r.Review.Target
	}
	for i, l := range wrapWords(summary, width-2) {
		if i == 0 {
			head = append(head, st.warn.Render(title)+l)
		} else {
			head = append(head, "  "+l)
		}
	}
	if t := r.Review.Target; t != "" && r.Review.Command == "" && !strings.Contains(summary, t) {
		for _, l := range wrapWords("target: "+t, width-2) {
			head = append(head, "  "+st.dim.Render(l))
		}
	}
	if w := r.Review.Warning; w != "" {
		for _, l := range wrapWords("⚠ "+w, width-2) {
			head = append(head, "  "+st.warn.Render(l))
		}
	}
	for _, why := range r.Why {
		for _, l := range wrapWords("asks because "+why, width-2) {
			head = append(head, "  "+st.hint.Render(l))
		}
	}
	return head
}

// approvalBody is the whole command or diff, wrapped to the width, every
// control character and line break made visible. It is never cut.
func (a *asking) body(st *styles, width int) []string {
	r := a.req
	width = max(width-4, 16)
	var body []string
	if c := r.Review.Command; c != "" {
		lines := strings.Split(c, "\n")
		for i, line := range lines {
			if i < len(lines)-1 {
				line += "↵"
			}
			for j, w := range wrapVisible(line, width) {
				prefix := "  "
				if j == 0 {
					prefix = "$ "
					if i > 0 {
						prefix = "> "
					}
				}
				body = append(body, st.toolName.Render(prefix)+w)
			}
		}
		return body
	}
	for _, l := range strings.Split(strings.TrimRight(r.Review.Detail, "\n"), "\n") {
		if l == "" && r.Review.Detail == "" {
			continue
		}
		style := st.dim
		switch {
		case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
			style = st.toolOK
		case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
			style = st.err
		}
		for _, w := range wrapVisible(l, width) {
			body = append(body, "  "+style.Render(w))
		}
	}
	return body
}

// wrapWords is wrapVisible for sentences and paths: lines break between
// words or after a path's "/", a word cut only when it alone is wider.
func wrapWords(s string, width int) []string {
	s = strings.ReplaceAll(listener.VisibleString(s), "\t", "␉")
	s = strings.ReplaceAll(s, "\n", "↵")
	return strings.Split(ansi.Wrap(s, width, "/"), "\n")
}

// wrapVisible makes control characters visible and hard-wraps s to width
// cells; a tab shows as ␉ so nothing can hide behind it.
func wrapVisible(s string, width int) []string {
	s = strings.ReplaceAll(listener.VisibleString(s), "\t", "␉")
	s = strings.ReplaceAll(s, "\n", "↵")
	return strings.Split(ansi.Hardwrap(s, width, true), "\n")
}

// approvalLayout is the prompt's head and whole body, and how many body
// lines fit with the head, the scroll line, the footer, what is below and
// the row the frame keeps free.
// layout is the head, the body and the room for it in a frame of
// width×height with below lines under the prompt.
func (a *asking) layout(st *styles, width, height, below int) (head, body []string, room int) {
	head, body = a.head(st, width), a.body(st, width)
	if height <= 0 {
		return head, body, 24
	}
	return head, body, max(height-len(head)-2-below-1, 3)
}

// clamp keeps top in range and notes when the last line is on screen.
func (a *asking) clamp(n, room int) {
	a.top = max(0, min(a.top, n-room))
	if a.top+room >= n {
		a.seenEnd = true
	}
}

// approvalView shows what the tool will do and the choices; a body taller
// than the room scrolls, and says where it is.
func (a *asking) view(st *styles, width, height, below int, typing bool) string {
	if a == nil {
		return ""
	}
	head, body, room := a.layout(st, width, height, below)
	// The window may have shrunk since the last key: fit top to it here,
	// without changing the model (View only draws).
	top := max(0, min(a.top, len(body)-room))
	lines := head
	end := min(top+room, len(body))
	lines = append(lines, body[top:end]...)
	if len(body) > room {
		lines = append(lines, st.hint.Render(fmt.Sprintf("  lines %d–%d of %d · ↑/↓ pgup/pgdn to scroll", top+1, end, len(body))))
	}
	switch {
	case a.reasoning:
		lines = append(lines, st.hint.Render("type why, then enter (esc goes back)"))
	case typing:
		lines = append(lines, st.hint.Render(truncateWidth("⌨ you are typing: the question waits · tab answers it · ctrl+c cancels the turn", width)))
	default:
		// The choices first: a long "always" scope is what gets cut.
		footer := "[y]es  [n]o  [t]ell it why"
		if a.req.NoModel {
			footer = "[y]es  [n]o"
		}
		if len(a.req.Always) > 0 {
			footer += "  [a]lways: " + grantList(a.req.Always)
		}
		cancels := "  · ctrl+c cancels the turn"
		if a.idle {
			cancels = "  · esc: no"
		}
		lines = append(lines, st.statusHi.Render(truncateWidth(footer+cancels, width)))
	}
	return strings.Join(lines, "\n")
}
