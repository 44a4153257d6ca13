package app

import (
	"maps"
	"slices"
	"strings"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Mode is one way the run can work: a box mode and a persona together.
type Mode struct{ ID, Name, Description string }

// Modes are the run's modes: the sandbox's box modes, each with every
// persona, so one choice in an editor says both; and the current one. A
// run without a box offers the personas alone; one with neither, none.
func (w *Run) Modes() ([]Mode, string) {
	personas := append([]string{""}, slices.Sorted(maps.Keys(w.ext.defs))...)
	var boxes []sandbox.Mode
	if w.shell.Boxed() {
		boxes = []sandbox.Mode{sandbox.WorkspaceWrite, sandbox.ReadOnly}
	}
	if len(boxes) == 0 && len(personas) == 1 {
		return nil, ""
	}
	if len(boxes) == 0 {
		boxes = []sandbox.Mode{sandbox.Off}
	}
	var modes []Mode
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

// SetMode switches the sandbox mode and the persona an id names.
func (w *Run) SetMode(id string) error {
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
