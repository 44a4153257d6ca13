package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
)

// Plan mode in the REPL: /plan or shift+tab turns it on; the agent reads,
// searches and runs read-only commands, and answers with a plan. Then the
// person chooses: /go carries it out, /go edit opens it in $EDITOR first,
// anything typed asks for another plan.

// togglePlanning is shift+tab.
func (m *Model) togglePlanning() tea.Cmd {
	if m.busy {
		m.notice, m.turnHint = "plan mode changes between turns: after this one, shift+tab", "plan mode changes between turns: after this one, shift+tab"
		return nil
	}
	return m.setPlanning(!m.app.Planning())
}

func (m *Model) setPlanning(on bool) tea.Cmd {
	err := m.app.SetPlanning(on)
	switch {
	case on && !m.app.Planning():
		m.notice = err.Error() // it could not start: nothing changed
	case on && err != nil:
		m.notice = "plan mode on · " + err.Error()
	case on:
		m.notice = "plan mode on: the agent reads and plans, nothing is written; /go carries the plan out"
	default:
		m.notice = "plan mode off: the agent may change files again"
	}
	return nil
}

// planCommand is /plan [TEXT]: plan mode on, and TEXT the task to plan.
func (m *Model) planCommand(text string) tea.Cmd {
	if !m.app.Planning() {
		m.setPlanning(true)
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return m.startTurn(text)
}

// goPlan is /go [edit]: plan mode off, and the plan carried out (edited in
// $EDITOR first with "edit").
func (m *Model) goPlan(arg string) tea.Cmd {
	if !m.app.Planning() {
		m.notice = "/go follows a plan: /plan TEXT (or shift+tab) plans first"
		return nil
	}
	if arg == "edit" {
		if m.lastAnswer == "" {
			m.notice = "no plan yet to edit: /plan TEXT asks for one"
			return nil
		}
		m.planEdit = true
		return m.openEditorWith(m.lastAnswer)
	}
	m.setPlanning(false)
	return m.startTurn(app.GoPrompt)
}

// planEdited carries out the plan as the person edited it.
func (m *Model) planEdited(text string) tea.Cmd {
	m.planEdit = false
	if strings.TrimSpace(text) == "" {
		m.notice = "the edited plan is empty: still in plan mode"
		return nil
	}
	m.setPlanning(false)
	return m.startTurn(app.EditedPlanPrompt(text))
}

// afterPlanTurn says what the person can do with the plan just written.
func (m *Model) afterPlanTurn() {
	if m.planTurn && m.app.Planning() {
		m.notice = "plan ready · /go carries it out · /go edit edits it first · or type what to change"
	}
	m.planTurn = false
}
