package tui

import (
	"fmt"
	"strings"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

// taskList is the agent's task list as the REPL shows it: live above the
// input while a turn runs (redrawn in place at each update, never a line
// per update), and printed once, final, into the scrollback when a turn
// that changed it ends.
type taskList struct {
	steps   []listener.PlanStep
	changed bool // updated during the running turn: printed when it ends
}

// maxLivePlanRows bounds the live list: a long plan shows what is done
// as a count and the steps around the current one.
const maxLivePlanRows = 8

// currentPlan is the list the conversation holds now (a resumed session
// shows the list it left, when steps are left).
func currentPlan(msgs []session.Message) taskList {
	p, ok := app.LatestPlan(msgs)
	if !ok {
		return taskList{}
	}
	return taskList{steps: app.PlanSteps(p)}
}

// onPlan takes the list the agent keeps.
func (l *taskList) onPlan(e listener.Plan) {
	l.steps, l.changed = e.Steps, true
}

// live is the live checklist while a turn that updated it runs (""
// otherwise: a finished list does not follow every later turn around).
func (l *taskList) live(st *styles, width int, busy bool) string {
	if !busy || !l.changed || len(l.steps) == 0 {
		return ""
	}
	steps := l.steps
	var lines []string
	more := 0
	if len(steps) > maxLivePlanRows {
		// The completed steps before the first open one become a count,
		// and what does not fit after it another.
		first := 0
		for first < len(steps) && steps[first].Status == "completed" {
			first++
		}
		if first > 0 {
			lines = append(lines, st.dim.Render(fmt.Sprintf("  ✔ %d done", first)))
			steps = steps[first:]
		}
		if room := maxLivePlanRows - len(lines); len(steps) > room {
			more = len(steps) - (room - 1)
			steps = steps[:room-1]
		}
	}
	for _, s := range steps {
		lines = append(lines, planLine(st, width, s))
	}
	if more > 0 {
		lines = append(lines, st.dim.Render(fmt.Sprintf("  … %d more", more)))
	}
	return st.hint.Render(l.head()) + "\n" + strings.Join(lines, "\n")
}

// head counts what is done.
func (l *taskList) head() string {
	done := 0
	for _, s := range l.steps {
		if s.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("plan · %d of %d done", done, len(l.steps))
}

func planLine(st *styles, width int, s listener.PlanStep) string {
	text := truncateWidth(visibleLine(s.Step), max(width-4, 10))
	line := "  " + listener.PlanMark(s.Status) + " " + text
	switch s.Status {
	case "completed":
		return st.dim.Render(line)
	case "in_progress":
		return st.statusHi.Render(line)
	}
	return line
}

// finish is the list as the turn left it, for the scrollback, once (""
// after that, or when the turn did not change it).
func (l *taskList) finish(st *styles, width int) string {
	if !l.changed || len(l.steps) == 0 {
		return ""
	}
	l.changed = false
	lines := []string{st.hint.Render(l.head())}
	for _, s := range l.steps {
		lines = append(lines, planLine(st, width, s))
	}
	return strings.Join(lines, "\n")
}

// left counts the steps not completed.
func (l taskList) left() int {
	n := 0
	for _, s := range l.steps {
		if s.Status != "completed" {
			n++
		}
	}
	return n
}
