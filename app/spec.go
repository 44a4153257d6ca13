package app

import (
	"io"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// Env is what a run takes from the machine: where it runs, the
// environment it reads and hands its children, and where it says things
// before a front end has a screen.
type Env struct {
	Workdir string
	Getenv  func(string) string
	// Environ is the environment children start from (secrets are
	// removed from it before any child sees it).
	Environ func() []string
	Stderr  io.Writer
}

// Spec says which run to build.
type Spec struct {
	Config config.Config
	Env    Env

	// The session: Resume names one by id prefix, Continue takes the
	// latest of the working directory, else a new one. NoSave keeps it in
	// memory. IfBusy is what to do when another chat writes the session
	// asked for: "new" starts a new one, "exit" fails.
	Resume   string
	Continue bool
	NoSave   bool
	IfBusy   string

	// Worktree, for a server of many sessions (chat acp --worktree NAME),
	// moves each session into its folder's repository's worktree NAME, as
	// EnterWorktree does; a run of one folder moves before its spec is made.
	Worktree string

	// Persona is the named agent definition to lead with ("" the
	// resumed session's, else the config's own agent).
	Persona string
	// AgentsDir holds imported agent definitions (NAME.json).
	AgentsDir string
	// Model, System and MaxSteps, when set, were asked for explicitly and
	// win over a persona's.
	Model, System *string
	MaxSteps      *int

	// Approver asks the person (nil: what needs approval is refused
	// unless the config allows it).
	Approver tool.Approver
	// Elicitor answers an MCP server's questions (nil: declined). It is
	// in place before any server connects: a server that asks while it
	// starts reaches the person as a later one does.
	Elicitor Elicitor
	// Titles: once the first turn is answered, a model (small_model, else
	// the model) names the session, for front ends that list sessions by
	// name (the REPL, chat serve). A one-shot run asks for none.
	Titles      bool
	Listeners   *listener.List
	Cancellable *control.Cancellable
	Interloper  *control.Interloper
}

// Probe is when the server is asked its context window.
type Probe int

const (
	ProbeNever      Probe = iota // the table's or the catalog's window
	ProbeAtStart                 // in the background, for the status bar
	ProbeWhenNeeded              // when a request first needs the window
)

// DefaultAgentName is what a session header calls the agent of a run
// without a persona.
const DefaultAgentName = "default"
