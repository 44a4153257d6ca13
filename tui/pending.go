package tui

import (
	"strings"

	"github.com/chatrepl/chat/app"
)

// pendingView lists what the person sent while the turn runs.
func pendingView(st *styles, width int, items []app.Pending) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	for i, p := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		label, style := "⇢ inject     ", st.inject
		if !p.Inject {
			label, style = "⏭ after turn ", st.after
		}
		text := strings.ReplaceAll(p.Text, "\n", " ⏎ ")
		b.WriteString(style.Render(label) + truncateWidth(text, width-14))
	}
	b.WriteString("\n" + st.hint.Render("↑ on an empty input edits the newest · ctrl+x deletes it"))
	return b.String()
}
