package app

import (
	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/session"
)

// ContinuePrompt is what /continue sends after a synthesized answer.
const ContinuePrompt = "Continue the task where you stopped. Your step budget has been renewed."

// Edits are the edits a person makes to an agent's conversation, each
// saved once made: the one API the REPL (and any front end) uses, so no
// front end mutates a session itself.
type Edits struct {
	agent *agent.Agent
	save  func(*session.Session) // nil: the conversation is not saved
}

// NewEdits edits a's conversation, saving each edit with save (nil: kept
// in memory only). A Run's are Run.Edits.
func NewEdits(a *agent.Agent, save func(*session.Session)) *Edits {
	return &Edits{agent: a, save: save}
}

// Edits are the run's history edits; each is saved behind (the front
// end's loop never waits for the disk).
func (r *Run) Edits() *Edits { return NewEdits(r.agent, r.host.saveBehind) }

func (e *Edits) saved(err error) error {
	if err == nil && e.save != nil {
		e.save(e.agent.Session())
	}
	return err
}

// DropLastExchange takes the person's last question and everything after
// it out of the conversation and returns the question (/undo puts it back
// in the input, /retry sends it again).
func (e *Edits) DropLastExchange() (session.Message, error) {
	q, err := e.agent.Session().DropLastExchange()
	return q, e.saved(err)
}

// EditFrom cuts the conversation back to before the question id: the
// person edited it, and it runs again from there.
func (e *Edits) EditFrom(id string) error {
	_, err := e.agent.Session().RewindTo(id)
	return e.saved(err)
}

// ContinueSynthesized drops a synthesized answer and returns the prompt
// that has the loop go on with a fresh budget.
func (e *Edits) ContinueSynthesized() (string, error) {
	if err := e.saved(e.agent.Session().DropSynthesized()); err != nil {
		return "", err
	}
	return ContinuePrompt, nil
}

// LastQuestion is the person's last question (Esc Esc edits it).
func (e *Edits) LastQuestion() (session.Message, bool) { return e.agent.Session().LastQuestion() }
