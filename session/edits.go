package session

import "errors"

// The history edits a person asks for (undo, retry, edit the last
// message, continue after a synthesized answer) live here, as operations
// that keep the tool-call/tool-result invariant; front ends call them and
// never cut the history themselves. Each is a mutator: no hook fires, and
// the store rewrites the file on its next Sync.

// ErrNoQuestion is an edit of the last question in a history without one.
var ErrNoQuestion = errors.New("there is no question to go back to yet")

// ErrFolded is an edit of a message a compaction folded into a summary:
// the model sees only the summary of it, so it cannot be taken back alone.
var ErrFolded = errors.New("the last question was folded into a summary (/compact, or to fit the context window); undo, retry and edit reach only what came after the summary")

// ErrNotSynthesized is a continue that does not follow a synthesized answer.
var ErrNotSynthesized = errors.New("the last answer is not a synthesized one")

// LastQuestion is the newest user message after the latest summary (what
// came before it, the model sees only as the summary).
func (s *Session) LastQuestion() (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.msgs) - 1; i >= 0 && s.msgs[i].Role != RoleSummary; i-- {
		if s.msgs[i].Role == RoleUser && !s.msgs[i].MidTurn {
			return s.msgs[i], true
		}
	}
	return Message{}, false
}

// folded reports whether a summary stands for the message at i.
func (s *Session) folded(i int) bool {
	for _, m := range s.msgs[i:] {
		if m.Role == RoleSummary {
			return true
		}
	}
	return false
}

// DropLastExchange removes the newest question and everything after it
// (its answer, its tool calls and their results), and returns the
// question: for /undo (which puts it back in the input) and /retry (which
// sends it again).
func (s *Session) DropLastExchange() (Message, error) {
	q, ok := s.LastQuestion()
	if !ok {
		s.mu.Lock()
		folded := len(s.msgs) > 0 && s.folded(0)
		s.mu.Unlock()
		if folded {
			return Message{}, ErrFolded
		}
		return Message{}, ErrNoQuestion
	}
	if _, err := s.TruncateAt(q.ID); err != nil {
		return Message{}, err
	}
	return q, nil
}

// RewindTo removes the user message id and everything after it, so the
// conversation can run again from an edited version of it.
func (s *Session) RewindTo(id string) (Message, error) {
	s.mu.Lock()
	i := s.index(id)
	notQuestion := i >= 0 && s.msgs[i].Role != RoleUser
	s.mu.Unlock()
	if notQuestion {
		return Message{}, errors.New("only a question can be edited and run again")
	}
	removed, err := s.TruncateAt(id)
	if err != nil {
		return Message{}, err
	}
	return removed[0], nil
}

// DropSynthesized removes a synthesized final answer, so the loop can go
// on with a fresh step budget (/continue).
func (s *Session) DropSynthesized() error {
	s.mu.Lock()
	n := len(s.msgs)
	if n == 0 || !s.msgs[n-1].Synthesized {
		s.mu.Unlock()
		return ErrNotSynthesized
	}
	id := s.msgs[n-1].ID
	s.mu.Unlock()
	_, err := s.TruncateAt(id)
	return err
}
