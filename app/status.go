package app

import (
	"strings"

	"github.com/chatrepl/chat/internal/project"
	"github.com/chatrepl/chat/internal/version"
)

// StatusFacts are what a status line command is told of the run that
// does not change with each event: the session, where it works, the box.
type StatusFacts struct {
	SessionID, TranscriptPath string
	Workdir, ProjectDir       string
	Version                   string
	Sandbox                   string // the box in force, one line
}

// StatusFacts are the run's, now.
func (r *Run) StatusFacts() StatusFacts {
	id, path := r.host.transcript()
	return StatusFacts{SessionID: id, TranscriptPath: path, Workdir: r.spec.Env.Workdir,
		ProjectDir: project.Root(r.spec.Env.Workdir), Version: version.Version(),
		Sandbox: strings.TrimSuffix(r.shell.Headline(), " · /sandbox (or chat sandbox) says what it allows")}
}
