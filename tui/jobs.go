package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// The background jobs the agent started (run_shell with background):
// /ps lists them, /ps N shows one's last lines, /stop N ends one; the
// status bar counts those running. They outlive a cancelled turn, and end
// when chat does.

// followTick redraws a followed job's tail.
type followTick struct{ id int }

// followEvery is how often a followed job's tail is redrawn.
const followEvery = 250 * time.Millisecond

// ps is /ps [N]: the list, or job N followed live above the input (its
// last lines, redrawn as it prints) until Esc.
func (m *Model) ps(arg string) tea.Cmd {
	jobs := m.app.Jobs().All()
	if arg != "" {
		id, err := strconv.Atoi(arg)
		if _, ok := m.app.Jobs().Get(id); err != nil || !ok {
			m.notice = "/ps N follows job N's output; /ps lists the jobs"
			return nil
		}
		m.follow = id
		m.notice = fmt.Sprintf("following job %d · esc stops following (the job goes on) · /stop %d ends it", id, id)
		return tea.Tick(followEvery, func(time.Time) tea.Msg { return followTick{id: id} })
	}
	if len(jobs) == 0 {
		m.print(m.blocks().notice(m.st.notice, "no background jobs (the agent starts one with run_shell background, for a server or a watcher)"))
		return nil
	}
	var b strings.Builder
	b.WriteString("background jobs (/ps N follows one, /stop N ends it):")
	for _, j := range jobs {
		last := visibleLine(j.Tail(1))
		fmt.Fprintf(&b, "\n  %-3d %-12s %-8s %s", j.ID, truncateWidth(j.State(), 12), j.For().Round(time.Second),
			truncateWidth(visibleLine(j.Command), max(m.width/3, 16)))
		if last != "" {
			b.WriteString("  " + m.st.dim.Render(truncateWidth(last, max(m.width-m.width/3-30, 10))))
		}
	}
	m.print(m.blocks().notice(m.st.notice, b.String()))
	return nil
}

// onFollowTick redraws the followed job while it is followed.
func (m *Model) onFollowTick(t followTick) tea.Cmd {
	if m.follow != t.id {
		return nil
	}
	if j, ok := m.app.Jobs().Get(t.id); ok && !j.Running() {
		m.notice = fmt.Sprintf("job %d ended: %s", j.ID, j.State())
		return nil // its last lines stay until esc
	}
	return tea.Tick(followEvery, func(time.Time) tea.Msg { return t })
}

// followView is the followed job's last lines ("" when none is).
func followView(st *styles, width int, jobs *tool.Jobs, follow int) string {
	j, ok := jobs.Get(follow)
	if follow == 0 || !ok {
		return ""
	}
	tail := listener.VisibleString(j.Tail(8))
	if strings.TrimSpace(tail) == "" {
		tail = "(no output yet)"
	}
	var b strings.Builder
	b.WriteString(st.hint.Render(fmt.Sprintf("job %d · %s · %s · %s", j.ID, j.State(), j.For().Round(time.Second),
		truncateWidth(visibleLine(j.Command), max(width-40, 16)))))
	for _, l := range strings.Split(tail, "\n") {
		b.WriteString("\n" + st.dim.Render("  │ "+truncateWidth(l, width-4)))
	}
	return b.String()
}

// stopJob is /stop N: the job and everything it started end (in a
// command: it waits for the process group).
func (m *Model) stopJob(arg string) {
	id, err := strconv.Atoi(strings.TrimSpace(arg))
	if err != nil {
		m.notice = "/stop N ends background job N (/ps lists them)"
		return
	}
	if err := m.app.Jobs().Stop(id); err != nil {
		m.notice = err.Error()
		return
	}
	if m.follow == id {
		m.follow = 0
	}
	m.print(m.blocks().notice(m.st.notice, fmt.Sprintf("■ job %d stopped", id)))
}

// jobsStatus is the status bar's count of running jobs ("" for none).
func jobsStatus(jobs *tool.Jobs) string {
	if n := jobs.Count(); n > 0 {
		return fmt.Sprintf("jobs %d (/ps)", n)
	}
	return ""
}
