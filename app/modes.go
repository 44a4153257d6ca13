package app

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Mode is one way the run can work: a box mode and a persona together.
type Mode struct{ ID, Name, Description string }

// PlanModeID is plan mode among the modes.
const PlanModeID = "plan"

// Modes are the run's modes: plan mode, then the sandbox's box modes, each
// with every persona, so one choice in an editor says both; and the
// current one. A run without a box offers the personas alone.
func (w *Run) Modes() ([]Mode, string) {
	personas := append([]string{""}, slices.Sorted(maps.Keys(w.ext.defs))...)
	var boxes []sandbox.Mode
	if w.shell.Boxed() {
		boxes = []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.ReadOnly}
	}
	if len(boxes) == 0 {
		boxes = []sandbox.Mode{sandbox.Off}
	}
	modes := []Mode{{ID: PlanModeID, Name: "Plan", Description: "reads, searches and runs read-only commands, then answers with a plan; nothing is written until you switch to another mode and say go"}}
	for _, box := range boxes {
		for _, p := range personas {
			modes = append(modes, mode(box, p, w.ext.defs[p]))
		}
	}
	current := sandbox.Off
	if w.shell.Boxed() {
		current = sandbox.WorkspaceWrite
		if w.shell.ReadOnly() {
			current = sandbox.ReadOnly
		}
	}
	if w.Planning() {
		return modes, PlanModeID
	}
	return modes, modeID(current, w.name)
}

func mode(box sandbox.Mode, persona string, def agent.Definition) Mode {
	var name, desc []string
	switch box {
	case sandbox.WorkspaceWrite:
		name, desc = append(name, "Workspace write"), append(desc, "commands run without asking in the sandbox and write only in the working directory")
	case sandbox.ReadOnly:
		name, desc = append(name, "Read only"), append(desc, "commands run without asking in a sandbox that writes nowhere (plan, review)")
	}
	if persona != "" {
		name = append(name, persona)
		if def.Description != "" {
			desc = append(desc, persona+": "+def.Description)
		}
	} else if box == sandbox.Off {
		name = append(name, "default agent")
	}
	return Mode{ID: modeID(box, persona), Name: strings.Join(name, " · "), Description: strings.Join(desc, "; ")}
}

// modeID is "workspace-write", "read-only/reviewer", or "reviewer" where
// there is no box.
func modeID(box sandbox.Mode, persona string) string {
	switch {
	case box == sandbox.Off && persona == "":
		return DefaultAgentName
	case box == sandbox.Off:
		return persona
	case persona == "" || persona == DefaultAgentName:
		return string(box)
	}
	return string(box) + "/" + persona
}

// SetMode switches to plan mode, or to the sandbox mode and the persona
// an id names.
func (w *Run) SetMode(id string) error {
	if id == PlanModeID {
		if err := w.SetPlanning(true); err != nil && !errors.Is(err, errNotBoxed) {
			return err // without a box it plans all the same, commands refused
		}
		return nil
	}
	if err := w.SetPlanning(false); err != nil {
		return err
	}
	box, persona := "", id
	if w.shell.Boxed() {
		box, persona, _ = strings.Cut(id, "/")
	}
	if persona == "" {
		persona = DefaultAgentName
	}
	if box != "" {
		m, err := sandbox.ParseMode(box)
		if err != nil {
			return err
		}
		if err := w.shell.SetMode(m); err != nil {
			return err
		}
	}
	if persona == w.name || persona == DefaultAgentName && w.name == "" {
		return nil
	}
	return w.SwitchAgent(persona)
}
