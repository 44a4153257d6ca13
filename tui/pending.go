package tui

import (
	"slices"
	"strings"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
)

// pendingItem is text sent while a turn runs: injected into it (with its
// id in the Interloper), or queued to run as the next turn.
type pendingItem struct {
	id     uint64 // the list's own number (a page edits an item by it)
	text   string
	inject bool   // true: into the running turn; false: as the next turn
	input  uint64 // an inject item's id in the Interloper
}

// pendingList is what the person sent while a turn runs, in order: the
// list the REPL shows above the input. It owns the bookkeeping with the
// agent's Interloper, whose items it knows by id.
type pendingList struct {
	in    *control.Interloper
	items []pendingItem
	next  uint64
}

func (p *pendingList) nextID() uint64 {
	p.next++
	return p.next
}

func (p *pendingList) len() int { return len(p.items) }

// inject sends text into the running turn.
func (p *pendingList) inject(text string) {
	p.items = append(p.items, pendingItem{id: p.nextID(), text: text, inject: true, input: p.in.Push(text)})
}

// queue keeps text (or a command) for after the turn.
func (p *pendingList) queue(text string) {
	p.items = append(p.items, pendingItem{id: p.nextID(), text: text})
}

// edit changes item id's text ("" removes it); false when a turn
// already took it.
func (p *pendingList) edit(id uint64, text string) bool {
	i := slices.IndexFunc(p.items, func(it pendingItem) bool { return it.id == id })
	if i < 0 {
		return false
	}
	it := &p.items[i]
	if it.inject && !p.in.Retract(it.input) {
		return false
	}
	if text == "" {
		p.items = slices.Delete(p.items, i, i+1)
		return true
	}
	it.text = text
	if it.inject {
		it.input = p.in.Push(text)
	}
	return true
}

// shared is the list as another front end sees it.
func (p *pendingList) shared() []app.Pending {
	out := make([]app.Pending, len(p.items))
	for i, it := range p.items {
		out[i] = app.Pending{ID: it.id, Text: it.text, Inject: it.inject, Input: it.input}
	}
	return out
}

// takeNewest removes the newest item still undelivered and returns it.
// An inject item the agent already took is skipped (it is in history).
func (p *pendingList) takeNewest() (pendingItem, bool) {
	for len(p.items) > 0 {
		i := len(p.items) - 1
		it := p.items[i]
		p.items = p.items[:i]
		if !it.inject || p.in.Retract(it.input) {
			return it, true
		}
	}
	return pendingItem{}, false
}

// delivered drops the inject item the agent just put into history.
func (p *pendingList) delivered(input uint64) {
	if i := slices.IndexFunc(p.items, func(it pendingItem) bool { return it.inject && it.input == input }); i >= 0 {
		p.items = slices.Delete(p.items, i, i+1)
	}
}

// leftovers empties the list when a turn ends: what the turn never took
// and what was queued, in the order the person sent them. After a cancel
// it goes back to the input, so nothing typed is lost; else it starts the
// next turn.
func (p *pendingList) leftovers() []string {
	sent := make([]app.Sent, len(p.items))
	for i, it := range p.items {
		sent[i] = app.Sent{Text: it.text, Inject: it.inject, ID: it.input}
	}
	p.items = nil
	return app.Leftovers(p.in, sent)
}

// pendingView lists what the person sent while the turn runs.
func (m *Model) pendingView() string {
	if m.pending.len() == 0 {
		return ""
	}
	var b strings.Builder
	for i, p := range m.pending.items {
		if i > 0 {
			b.WriteByte('\n')
		}
		label, style := "⇢ inject     ", m.st.inject
		if !p.inject {
			label, style = "⏭ after turn ", m.st.after
		}
		text := strings.ReplaceAll(p.text, "\n", " ⏎ ")
		b.WriteString(style.Render(label) + truncateWidth(text, m.width-14))
	}
	b.WriteString("\n" + m.st.hint.Render("↑ on an empty input edits the newest · ctrl+x deletes it"))
	return b.String()
}
