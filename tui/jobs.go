package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chatrepl/chat/listener"
)

// The background jobs the agent started (run_shell with background):
// /ps lists them, /ps N shows one's last lines, /stop N ends one; the
// status bar counts those running. They outlive a cancelled turn, and end
// when chat does.

// ps is /ps [N].
func (m *Model) ps(arg string) {
	jobs := m.app.Jobs().All()
	if arg != "" {
		id, err := strconv.Atoi(arg)
		j, ok := m.app.Jobs().Get(id)
		if err != nil || !ok {
			m.notice = "/ps N shows job N's last lines; /ps lists the jobs"
			return
		}
		tail := listener.VisibleString(j.Tail(20))
		if strings.TrimSpace(tail) == "" {
			tail = "(no output yet)"
		}
		m.print(m.noticeBlock(m.st.notice, fmt.Sprintf("job %d · %s · %s · %s\n%s", j.ID, j.State(), j.For().Round(time.Second),
			truncateWidth(visibleLine(j.Command), max(m.width-30, 20)), m.st.dim.Render(tail))))
		return
	}
	if len(jobs) == 0 {
		m.print(m.noticeBlock(m.st.notice, "no background jobs (the agent starts one with run_shell background, for a server or a watcher)"))
		return
	}
	var b strings.Builder
	b.WriteString("background jobs (/ps N shows one, /stop N ends it):")
	for _, j := range jobs {
		last := visibleLine(j.Tail(1))
		fmt.Fprintf(&b, "\n  %-3d %-12s %-8s %s", j.ID, truncateWidth(j.State(), 12), j.For().Round(time.Second),
			truncateWidth(visibleLine(j.Command), max(m.width/3, 16)))
		if last != "" {
			b.WriteString("  " + m.st.dim.Render(truncateWidth(last, max(m.width-m.width/3-30, 10))))
		}
	}
	m.print(m.noticeBlock(m.st.notice, b.String()))
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
	m.print(m.noticeBlock(m.st.notice, fmt.Sprintf("■ job %d stopped", id)))
}

// jobsStatus is the status bar's count of running jobs ("" for none).
func (m *Model) jobsStatus() string {
	if n := m.app.Jobs().Count(); n > 0 {
		return fmt.Sprintf("jobs %d (/ps)", n)
	}
	return ""
}
