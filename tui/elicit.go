package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chatrepl/chat/app"
)

// An MCP server's question (elicitation) is a form under the transcript.
// Like an approval, typing never answers it: the person moves to it with
// Tab; each field is then typed in the input (enter: next field), and on
// the last screen a, d or c accepts, declines or cancels. Esc goes back
// to the message being typed; the form waits.

// Elicit implements app.Elicitor: it shows the form in the program and
// waits for the answer or for the call that asked to end.
func (a *Approvals) Elicit(ctx context.Context, e app.Elicitation) (app.ElicitAnswer, error) {
	select { // a server that asks as it starts waits for the screen
	case <-a.ready:
	case <-ctx.Done():
		return app.ElicitAnswer{}, ctx.Err()
	}
	a.mu.Lock()
	send := a.send
	a.mu.Unlock()
	if send == nil {
		return app.ElicitAnswer{Action: "decline"}, nil
	}
	select {
	case a.one <- struct{}{}: // one question on screen at a time
		defer func() { <-a.one }()
	case <-ctx.Done():
		return app.ElicitAnswer{}, ctx.Err()
	}
	reply := make(chan app.ElicitAnswer, 1)
	send(elicitMsg{e: e, reply: reply})
	select {
	case ans := <-reply:
		return ans, nil
	case <-ctx.Done():
		send(elicitGoneMsg{reply: reply})
		return app.ElicitAnswer{}, ctx.Err()
	}
}

type elicitMsg struct {
	e     app.Elicitation
	reply chan<- app.ElicitAnswer
}

// elicitGoneMsg: the call that asked ended; its form is taken down.
type elicitGoneMsg struct{ reply chan<- app.ElicitAnswer }

// form is a question on screen.
type form struct {
	elicitMsg
	focused bool
	field   int // the field being typed; len(Fields) is the last screen
	values  map[string]string
	stash   string // the person's message while the input holds a field
}

func (f *form) done() bool { return f.field >= len(f.e.Fields) }

func (m *Model) onElicit(msg elicitMsg) {
	f := &form{elicitMsg: msg, values: map[string]string{}}
	for _, fl := range msg.e.Fields {
		f.values[fl.Name] = fl.Default
	}
	m.form = f
	m.live.state = "waiting for your answer"
	if msg.e.URL != "" {
		// The address is printed whole, where it can be copied; nothing
		// opens it.
		m.print(m.blocks().notice(m.st.warn, "? "+visibleLine(msg.e.Server)+" asks you to visit: "+visibleLine(msg.e.URL)))
	}
}

// formKey handles a key while a form is up; false leaves it to the input.
func (m *Model) formKey(k tea.KeyPressMsg) bool {
	f := m.form
	key := k.String()
	if !f.focused {
		if key != "tab" {
			return false // typing: the form waits
		}
		f.focused, f.stash = true, m.input.value()
		m.notice = ""
		f.load(&m.input)
		return true
	}
	switch key {
	case "esc":
		f.keep(&m.input)
		f.focused = false
		m.input.set(f.stash)
		m.notice = "the form waits: tab goes back to it"
		return true
	case "up", "shift+tab":
		f.keep(&m.input)
		f.field = max(f.field-1, 0)
		m.notice = ""
		f.load(&m.input)
		return true
	case "down":
		if !f.done() {
			f.keep(&m.input)
			f.field++
			m.notice = ""
			f.load(&m.input)
		}
		return true
	}
	if !f.done() {
		if key != "enter" && key != "tab" {
			return false // the field's value, typed in the input
		}
		fl := f.e.Fields[f.field]
		if _, err := fl.Parse(m.input.value()); err != nil {
			m.notice = "✗ " + err.Error()
			return true
		}
		f.keep(&m.input)
		f.field++
		m.notice = ""
		f.load(&m.input)
		return true
	}
	switch key {
	case "a":
		if f.e.URL == "" {
			if _, err := f.e.Content(f.values); err != nil {
				m.notice = "✗ " + strings.ReplaceAll(err.Error(), "\n", "; ")
				return true
			}
		}
		f.reply <- app.ElicitAnswer{Action: "accept", Values: f.values}
		m.closeForm("  ✓ answered " + visibleLine(f.e.Server) + f.summary())
	case "d":
		f.reply <- app.ElicitAnswer{Action: "decline"}
		m.closeForm("  ✗ declined " + visibleLine(f.e.Server) + "'s question")
	case "c":
		f.reply <- app.ElicitAnswer{Action: "cancel"}
		m.closeForm("  cancelled " + visibleLine(f.e.Server) + "'s question")
	}
	return true // nothing else is typed on the last screen
}

// load puts the current field's value in the input.
func (f *form) load(in *input) {
	if f.done() {
		in.set("")
		return
	}
	in.set(f.values[f.e.Fields[f.field].Name])
}

// keep takes the input's text as the current field's value.
func (f *form) keep(in *input) {
	if !f.done() {
		f.values[f.e.Fields[f.field].Name] = strings.TrimSpace(in.value())
	}
}

// summary is what an accepted form sent, for the transcript.
func (f *form) summary() string {
	var parts []string
	for _, fl := range f.e.Fields {
		if v := f.values[fl.Name]; v != "" {
			parts = append(parts, fl.Name+"="+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + visibleLine(strings.Join(parts, ", "))
}

func (m *Model) closeForm(note string) {
	f := m.form
	if f.focused {
		m.input.set(f.stash)
	}
	m.form = nil
	m.notice = ""
	if m.busy {
		m.live.state = "running"
	}
	m.print(m.blocks().notice(m.st.notice, truncateWidth(note, max(m.width, 20))))
}

// view is the question, its fields and what the keys do, in a frame of
// width×height.
func (f *form) view(st *styles, width, height int) string {
	if f == nil {
		return ""
	}
	width = max(width, 20)
	var lines []string
	for i, l := range wrapVisible(f.e.Server+" asks: "+f.e.Message, width-2) {
		if i == 0 {
			l = st.warn.Render("? ") + l
		} else {
			l = "  " + l
		}
		lines = append(lines, l)
	}
	if f.e.URL != "" {
		lines = append(lines, "  "+st.toolName.Render(truncateWidth(visibleLine(f.e.URL), width-2))+st.dim.Render("  (not opened: visit it yourself)"))
	}
	var rows []string
	for i, fl := range f.e.Fields {
		current := f.focused && i == f.field
		mark := "  "
		if current {
			mark = "▸ "
		}
		label := fl.Label()
		if fl.Required {
			label += " *"
		}
		value := visibleLine(f.values[fl.Name])
		if current {
			value = "(typing below)"
		}
		line := truncateWidth(fmt.Sprintf("%s%-22s %s", mark, truncateWidth(visibleLine(label), 22), value), width)
		if current {
			line = st.statusHi.Render(line)
		}
		if room := width - ansi.StringWidth(line) - 3; room > 8 {
			if hint := fieldHint(fl); hint != "" {
				line += st.dim.Render("   " + truncateWidth(visibleLine(hint), room))
			}
		}
		rows = append(rows, line)
	}
	if keep := max(height/2-len(lines)-1, 3); height > 0 && len(rows) > keep {
		// A tall form keeps the field being typed in view.
		start := max(0, min(f.field-keep/2, len(rows)-keep))
		rows = rows[start : start+keep]
	}
	lines = append(lines, rows...)
	var footer string
	switch {
	case !f.focused:
		footer = "⌨ typing stays your message · tab answers the form · ctrl+c cancels the turn"
	case !f.done():
		footer = "type " + f.e.Fields[f.field].Label() + " below · enter next · ↑/↓ fields (unchecked) · esc back to your message"
	case f.e.URL != "":
		footer = "[a]ccept (done)  [d]ecline  [c]ancel  · esc back to your message"
	default:
		footer = "[a]ccept  [d]ecline  [c]ancel  · ↑ back to the fields · esc back to your message"
	}
	lines = append(lines, st.statusHi.Render(truncateWidth(footer, width)))
	return strings.Join(lines, "\n")
}

// fieldHint says what a field takes: its description, type and choices.
func fieldHint(fl app.ElicitField) string {
	var parts []string
	if fl.Description != "" {
		parts = append(parts, fl.Description)
	}
	switch {
	case fl.Type == "choice":
		var cs []string
		for i, c := range fl.Choices {
			s := fmt.Sprintf("%d %s", i+1, c.Value)
			if c.Title != "" && c.Title != c.Value {
				s = fmt.Sprintf("%d %s", i+1, c.Title)
			}
			cs = append(cs, s)
		}
		how := "one of"
		if fl.Multi {
			how = "any of (a, b)"
		}
		parts = append(parts, how+": "+strings.Join(cs, ", "))
	case fl.Type == "boolean":
		parts = append(parts, "yes/no")
	case fl.Format != "":
		parts = append(parts, fl.Format)
	case fl.Type != "string":
		parts = append(parts, fl.Type)
	}
	return strings.Join(parts, " · ")
}
