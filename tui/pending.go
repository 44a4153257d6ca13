package tui

import (
	"strings"
)

// pendingView lists what the person sent while the turn runs.
func (m *Model) pendingView() string {
	if len(m.pending) == 0 {
		return ""
	}
	var b strings.Builder
	for i, p := range m.pending {
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

// takePending removes the newest item still undelivered and returns it.
// An inject item the agent already took is skipped (it is in history).
func (m *Model) takePending() (pendingItem, bool) {
	for len(m.pending) > 0 {
		i := len(m.pending) - 1
		p := m.pending[i]
		m.pending = m.pending[:i]
		if !p.inject || m.opts.Interloper.Retract(p.input) {
			return p, true
		}
	}
	return pendingItem{}, false
}

// delivered drops the inject item the agent just put into history.
func (m *Model) delivered(input uint64) {
	for i, p := range m.pending {
		if p.inject && p.input == input {
			m.pending = append(m.pending[:i:i], m.pending[i+1:]...)
			return
		}
	}
}

// reclaimPending takes back everything undelivered, oldest first: after a
// cancel it returns to the input, so nothing typed is lost.
func (m *Model) reclaimPending() []string {
	var out []string
	for _, p := range m.pending {
		if !p.inject || m.opts.Interloper.Retract(p.input) {
			out = append(out, p.text)
		}
	}
	m.pending = nil
	return out
}
