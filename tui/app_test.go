package tui

import (
	"context"
	"errors"
	"io"
	"os/exec"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// testApp is the App the tests drive: an agent, nothing saved, and what a
// test sets (the lists the slash commands show, sessions, files).
type testApp struct {
	*agent.Agent
	in       *control.Interloper
	sessions SessionHost
	files    func(depth int) ([]string, error)
	workdir  string
	tools    []ToolState
	skills   []tool.Skill
	mcp      []MCPState
	personas []string
	planning bool
	jobs     tool.Jobs
	loop     *app.Loop
}

func (a *testApp) Loop() *app.Loop {
	if a.loop == nil {
		a.loop = app.NewLoop(a.in, a.Agent.Cancel, nil)
	}
	return a.loop
}

func (a *testApp) Jobs() *tool.Jobs { return &a.jobs }

func (a *testApp) NewTurn(ctx context.Context, text string, files ...session.FilePart) *agent.Turn {
	return a.Agent.NewTurn(ctx, text, files...)
}
func (a *testApp) NewTurnWith(ctx context.Context, model, text string, files ...session.FilePart) *agent.Turn {
	return a.Agent.NewTurnWith(ctx, model, text, files...)
}
func (a *testApp) PromptFiles() (cmds, shadowed []app.PromptFile, problems []string) {
	return nil, nil, nil
}
func (a *testApp) PromptCommand(string, func(string) bool) (app.PromptFile, string, bool) {
	return app.PromptFile{}, "", false
}
func (a *testApp) RunPromptFile(_ context.Context, _ app.IdleAsker, c app.PromptFile, args string) (string, error) {
	return c.Expand(args), nil
}
func (a *testApp) Planning() bool            { return a.planning }
func (a *testApp) SetPlanning(on bool) error { a.planning = on; return nil }

func (a *testApp) Edits() *app.Edits { return app.NewEdits(a.Agent, nil) }
func (a *testApp) Sessions() SessionHost {
	if a.sessions == nil {
		return nil // a nil *fakeHost would be a non-nil interface
	}
	return a.sessions
}
func (a *testApp) Resumed() bool { return false }
func (a *testApp) Draft() string { return "" }
func (a *testApp) Models(context.Context) ([]string, error) {
	return nil, errors.New("this server cannot list models")
}
func (a *testApp) Personas() []string            { return a.personas }
func (a *testApp) Persona() string               { return "" }
func (a *testApp) SwitchAgent(name string) error { return errors.New("no agent named " + name) }
func (a *testApp) ToolStates() []ToolState       { return a.tools }
func (a *testApp) Sandbox() string               { return "" }
func (a *testApp) Network() *tool.Network        { return nil }
func (a *testApp) Skills() []tool.Skill          { return a.skills }
func (a *testApp) MCPStates() []MCPState         { return a.mcp }
func (a *testApp) MCP() *app.MCP                 { return nil }
func (a *testApp) HookList() string              { return "" }
func (a *testApp) ReviewRequest(context.Context, string) (string, int, error) {
	return "", 0, app.ErrNothingToReview
}
func (a *testApp) SetReviewing(bool) error      { return nil }
func (a *testApp) StatusFacts() app.StatusFacts { return app.StatusFacts{Workdir: "/w"} }
func (a *testApp) DiagnosticsReport() string    { return "no language server is configured" }
func (a *testApp) Worktree(context.Context, string) (string, string, error) {
	return "", "", errors.New("not in a git repository")
}
func (a *testApp) ProjectFiles() []string            { return nil }
func (a *testApp) PriceSource(string) string         { return "" }
func (a *testApp) Rewinder() Rewinder                { return nil }
func (a *testApp) Workdir() string                   { return a.workdir }
func (a *testApp) Files(depth int) ([]string, error) { return a.files(depth) }
func (a *testApp) Price() func(string, session.Usage) (float64, bool) {
	return nil
}
func (a *testApp) PersonShell(ctx context.Context, command string, out io.Writer) (int, error) {
	if a.workdir == "" {
		return -1, errors.New("no shell in tests")
	}
	c := exec.CommandContext(ctx, "sh", "-c", command)
	c.Dir, c.Stdout, c.Stderr = a.workdir, out, out
	err := c.Run()
	if c.ProcessState != nil {
		return c.ProcessState.ExitCode(), nil
	}
	return -1, err
}
