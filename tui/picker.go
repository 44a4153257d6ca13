package tui

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// picker chooses a saved session: ↑/↓ move, enter resumes, esc closes.
type picker struct {
	items  []session.Info
	sel    int
	closed bool // esc: the picker goes
}

type sessionsMsg struct {
	items []session.Info
	err   error
}

// openPicker lists the sessions in a command (reading the store is IO).
func (m *Model) openPicker() tea.Cmd {
	host := m.app.Sessions()
	if host == nil {
		m.notice = "sessions are not being saved in this run"
		return nil
	}
	return func() tea.Msg {
		items, err := host.List()
		return sessionsMsg{items: items, err: err}
	}
}

func (m *Model) onSessions(msg sessionsMsg) {
	// A session with nothing but its system prompt (this one, just
	// started, say) is not worth resuming.
	items := msg.items[:0:0]
	for _, s := range msg.items {
		if s.Messages > 1 {
			items = append(items, s)
		}
	}
	msg.items = items
	switch {
	case msg.err != nil:
		m.print(m.blocks().notice(m.st.err, "✗ "+msg.err.Error()))
	case len(msg.items) == 0:
		m.notice = "no saved sessions yet"
	default:
		// This folder's sessions first (newest first within each part):
		// the others resume with tools acting here, which is said.
		here := m.app.Workdir()
		slices.SortStableFunc(msg.items, func(a, b session.Info) int {
			return cmp.Compare(boolRank(a.Dir != here), boolRank(b.Dir != here))
		})
		m.picker = &picker{items: msg.items}
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// key moves the selection, picks (chosen: the session's id) or closes
// the picker; handled is false for a key it lets through.
func (p *picker) key(key string) (chosen string, handled bool) {
	switch key {
	case "up", "ctrl+p":
		p.sel = max(p.sel-1, 0)
	case "down", "ctrl+n":
		p.sel = min(p.sel+1, len(p.items)-1)
	case "enter":
		return p.items[p.sel].ID, true
	case "esc", "ctrl+c":
		p.closed = true
	default:
		return "", false
	}
	return "", true
}

// view is the list of sessions to resume, at width, ages as of now.
func (p *picker) view(st *styles, width int, now time.Time) string {
	if p == nil {
		return ""
	}
	const rows = 8
	start := min(max(p.sel-rows/2, 0), max(len(p.items)-rows, 0))
	end := min(start+rows, len(p.items))
	var b strings.Builder
	b.WriteString(st.statusHi.Render(fmt.Sprintf("resume a session (%d) · ↑/↓ enter esc", len(p.items))))
	for i := start; i < end; i++ {
		s := p.items[i]
		row := fmt.Sprintf("%s  %-9s %4d msgs  %-24s  %s", visibleLine(session.ShortID(s.ID)), session.AgoText(now.Sub(s.Updated)), s.Messages,
			truncateLeft(visibleLine(shortDir(s.Dir)), 24), listener.VisibleString(s.Title))
		row = truncateWidth(row, width-2)
		if i == p.sel {
			b.WriteString("\n" + st.user.Render("▸ "+row))
		} else {
			b.WriteString("\n  " + st.dim.Render(row))
		}
	}
	return b.String()
}

// shortDir shows a session's folder: home as ~.
func shortDir(dir string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(dir, home) {
		return "~" + strings.TrimPrefix(dir, home)
	}
	return dir
}

// truncateLeft keeps the end of s (a path's last folders matter most).
func truncateLeft(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return "…" + string(r[len(r)-width+1:])
}
