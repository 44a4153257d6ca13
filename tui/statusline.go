package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
)

// StatusLine is the person's own status line: a command given the
// session's state as JSON on stdin (Claude Code's fields where they
// apply, and chat's), whose first line stands in the status bar.
type StatusLine struct {
	Command string
	Env     []string // the command's environment (nil: chat's)
	Dir     string
}

const (
	// statusEvery is how often the line may be run again when what it
	// is told changed.
	statusEvery = 300 * time.Millisecond
	// statusTimeout bounds one run of the command.
	statusTimeout = 2 * time.Second
)

// statusLine is the REPL's side of StatusLine.
type statusLine struct {
	StatusLine
	running  bool
	lastIn   string // the JSON the shown line was made from
	shown    string // the first line it printed ("": the built-in status)
	failed   bool   // said once that it failed
	facts    app.StatusFacts
	hasFacts bool
}

type statusTickMsg struct{}

type statusLineMsg struct {
	in, line string
	facts    app.StatusFacts
	err      error
}

// statusInput is what the command is told, as JSON.
func (m *Model) statusInput() string {
	f := m.statusLine.facts
	window := m.app.ContextWindow()
	steps := map[string]int{"used": m.steps}
	if sl := m.app.StepLimit(); sl != nil {
		steps["max"] = sl.Max()
	}
	cost := map[string]any{"total_cost_usd": m.usage.spent.cost, "total_input_tokens": m.usage.spent.in, "total_output_tokens": m.usage.spent.out}
	if m.usage.spent.unpriced {
		cost["total_cost_usd"] = nil
	}
	in := map[string]any{
		"hook_event_name": "Status",
		"session_id":      f.SessionID,
		"transcript_path": f.TranscriptPath,
		"cwd":             f.Workdir,
		"model":           map[string]string{"id": m.app.Model(), "display_name": m.app.Model()},
		"workspace":       map[string]string{"current_dir": f.Workdir, "project_dir": f.ProjectDir},
		"version":         f.Version,
		"output_style":    map[string]string{"name": "default"},
		"cost":            cost,
		"chat": map[string]any{
			"context":   map[string]int{"used": m.usage.contextUsed, "window": window},
			"steps":     steps,
			"plan_mode": m.app.Planning(),
			"jobs":      m.app.Jobs().Count(),
			"sandbox":   f.Sandbox,
			"agent":     m.agentName,
			"busy":      m.busy,
		},
	}
	b, _ := json.Marshal(in)
	return string(b)
}

// statusTick runs the command when what it would be told changed, at
// most every statusEvery, one run at a time.
func (m *Model) onStatusTick() tea.Cmd {
	sl := &m.statusLine
	next := tea.Tick(statusEvery, func(time.Time) tea.Msg { return statusTickMsg{} })
	if sl.running {
		return next
	}
	if !sl.hasFacts {
		// The facts (the session's file, the box) are read once, behind.
		sl.running = true
		return tea.Batch(next, func() tea.Msg {
			return statusLineMsg{facts: m.app.StatusFacts(), line: "\x00facts"}
		})
	}
	in := m.statusInput()
	if in == sl.lastIn {
		return next
	}
	sl.running = true
	command, env, dir := sl.Command, sl.Env, sl.Dir
	return tea.Batch(next, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Stdin, cmd.Env, cmd.Dir = strings.NewReader(in), env, dir
		cmd.WaitDelay = 200 * time.Millisecond
		var out bytes.Buffer
		cmd.Stdout = &out
		err := cmd.Run()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		line, _, _ := strings.Cut(out.String(), "\n")
		return statusLineMsg{in: in, line: line, err: err}
	})
}

func (m *Model) onStatusLine(msg statusLineMsg) {
	sl := &m.statusLine
	sl.running = false
	if msg.line == "\x00facts" {
		sl.facts, sl.hasFacts = msg.facts, true
		return
	}
	sl.lastIn = msg.in
	if msg.err != nil {
		sl.shown = ""
		if !sl.failed {
			sl.failed = true
			m.print(m.blocks().notice(m.st.warn, "⚠ the status line command failed ("+visibleLine(msg.err.Error())+"); the built-in status is shown until it works"))
		}
		return
	}
	sl.shown = listener.VisibleString(strings.TrimSpace(msg.line))
}
