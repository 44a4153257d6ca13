package tui

import "strings"

// pendingView lists what the person sent while the turn runs.
func (m *Model) pendingView() string {
	items := m.loop.Pending()
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	for i, p := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		label, style := "⇢ inject     ", m.st.inject
		if !p.Inject {
			label, style = "⏭ after turn ", m.st.after
		}
		text := strings.ReplaceAll(p.Text, "\n", " ⏎ ")
		b.WriteString(style.Render(label) + truncateWidth(text, m.width-14))
	}
	b.WriteString("\n" + m.st.hint.Render("↑ on an empty input edits the newest · ctrl+x deletes it"))
	return b.String()
}
