package session

import (
	"errors"
	"fmt"
	"sync"
)

// ErrNotFound is returned by mutators for an unknown id.
var ErrNotFound = errors.New("message not found")

// Session holds one conversation. It is safe for concurrent use, but history
// is meant to change from one goroutine at a time (the agent during a turn,
// the host between turns).
type Session struct {
	mu         sync.Mutex
	msgs       []Message
	hooks      []func(Message)
	inputHooks []func(Message)
	startHooks []func(ToolCall)
	settlers   []func()
	rewound    []Message // taken out by ArchiveFrom, kept for the file
	// revision counts changes that are not appends (mutators, healing,
	// pruning): a store that saw the same revision may just append.
	revision int
}

// New returns a session seeded with msgs (copied as is; see PruneOrphans
// for a history loaded from elsewhere).
func New(msgs ...Message) *Session {
	return &Session{msgs: append([]Message(nil), msgs...)}
}

// OnMessage registers f to see every Assistant and Tool message the agent
// produces, as it is produced.
func (s *Session) OnMessage(f func(Message)) *Session {
	s.mu.Lock()
	s.hooks = append(s.hooks, f)
	s.mu.Unlock()
	return s
}

// Messages returns a copy of the history. It is the whole conversation,
// thousands of messages in a long session: what is sent next is Sent, what
// came lately Since, each a copy of only that part.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Sent returns a copy of what the next request carries (Sent of the
// history): after a compaction, the summary and what came after it.
func (s *Session) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, at := LatestSummary(s.msgs); at >= 0 {
		return Sent(s.msgs) // a new slice already
	}
	return append([]Message(nil), s.msgs...)
}

// Since returns a copy of the messages from index i on (none when the
// history is shorter), with the length and revision of the history they
// were taken from.
func (s *Session) Since(i int) (tail []Message, n, revision int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < len(s.msgs) {
		tail = append([]Message(nil), s.msgs[max(i, 0):]...)
	}
	return tail, len(s.msgs), s.revision
}

// Chunk copies the messages from index i on into dst, as many as fit,
// and says how many, with the length and revision of the history they
// were taken from: a long history is read piece by piece this way, never
// copied whole.
func (s *Session) Chunk(dst []Message, i int) (copied, n, revision int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < len(s.msgs) {
		copied = copy(dst, s.msgs[max(i, 0):])
	}
	return copied, len(s.msgs), s.revision
}

// View calls f with the history itself, not a copy, while nothing can
// change it: for reading what a long history holds without copying it.
// f must not change msgs, keep them past its return, or call s.
func (s *Session) View(f func(msgs []Message)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.msgs)
}

// LatestSummary is the latest compaction record and its index, or -1.
func (s *Session) LatestSummary() (Message, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return LatestSummary(s.msgs)
}

// PendingCalls are the last assistant message's calls without a result.
func (s *Session) PendingCalls() []ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return PendingCalls(s.msgs)
}

// Len is the number of messages.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.msgs)
}

// Append adds messages; hooks fire for Assistant and Tool messages.
func (s *Session) Append(msgs ...Message) {
	s.mu.Lock()
	s.msgs = append(s.msgs, msgs...)
	hooks := s.hooks
	s.mu.Unlock()
	for _, m := range msgs {
		if m.Role == RoleAssistant || m.Role == RoleTool {
			for _, h := range hooks {
				h(m)
			}
		}
	}
}

// OnInput registers f to see each user or system message as it is added
// (a store writes them when sent). OnMessage hooks do not see inputs.
func (s *Session) OnInput(f func(Message)) *Session {
	s.mu.Lock()
	s.inputHooks = append(s.inputHooks, f)
	s.mu.Unlock()
	return s
}

// AppendInput adds a user or system message; OnMessage hooks do not fire.
func (s *Session) AppendInput(m Message) {
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	hooks := s.inputHooks
	s.mu.Unlock()
	for _, h := range hooks {
		h(m)
	}
}

// OnSettle registers f, which waits for what a hook saves in the
// background (a store writes inputs behind).
func (s *Session) OnSettle(f func()) *Session {
	s.mu.Lock()
	s.settlers = append(s.settlers, f)
	s.mu.Unlock()
	return s
}

// Settle waits until what the hooks save in the background is saved: the
// agent settles before it shows an answer, so whatever was answered on
// screen has its question on disk.
func (s *Session) Settle() {
	s.mu.Lock()
	settlers := s.settlers
	s.mu.Unlock()
	for _, f := range settlers {
		f()
	}
}

// OnStart registers f to see each tool call as it starts (a store writes
// that down, so a call is never run twice).
func (s *Session) OnStart(f func(ToolCall)) *Session {
	s.mu.Lock()
	s.startHooks = append(s.startHooks, f)
	s.mu.Unlock()
	return s
}

// MarkStarted records that the call with this id began to run, and tells
// the OnStart hooks before it returns (and so before the call runs).
func (s *Session) MarkStarted(callID string) {
	s.mu.Lock()
	var call ToolCall
	found := false
	for i := len(s.msgs) - 1; i >= 0 && !found; i-- {
		for j, c := range s.msgs[i].ToolCalls {
			if c.ID == callID {
				// A new slice: copies of the history handed out share the old.
				calls := append([]ToolCall(nil), s.msgs[i].ToolCalls...)
				calls[j].Started = true
				s.msgs[i].ToolCalls = calls
				call, found = calls[j], true
				break
			}
		}
	}
	hooks := s.startHooks
	s.mu.Unlock()
	if !found {
		return
	}
	for _, h := range hooks {
		h(call)
	}
}

// Revision changes whenever history changes other than by appending.
func (s *Session) Revision() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.revision
}

// Heal fills orphan tool calls with placeholders (no hook fires) and
// returns the ids it filled.
func (s *Session) Heal() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var filled []string
	s.msgs, filled = FillOrphans(s.msgs)
	if len(filled) > 0 {
		s.revision++
	}
	return filled
}

// Prune drops broken exchanges but the pending calls of the resume boundary.
func (s *Session) Prune() {
	s.mu.Lock()
	if pruned := PruneOrphans(s.msgs); len(pruned) != len(s.msgs) {
		s.msgs = pruned
		s.revision++
	}
	s.mu.Unlock()
}

// MarkUnanswered marks the user messages at the end of history (nothing
// answered them) as unanswered and returns them. It is a mutator: the
// store rewrites the file on its next Sync.
func (s *Session) MarkUnanswered() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var marked []Message
	for i := len(s.msgs) - 1; i >= 0 && s.msgs[i].Role == RoleUser; i-- {
		if !s.msgs[i].Unanswered {
			s.msgs[i].Unanswered = true
			marked = append([]Message{s.msgs[i]}, marked...)
		}
	}
	if len(marked) > 0 {
		s.revision++
	}
	return marked
}

// NoteUnanswered marks the trailing questions unanswered, as
// MarkUnanswered, and returns those the person was not yet told about,
// noting that they now are (a loaded session says so once per question).
func (s *Session) NoteUnanswered() []Message {
	s.MarkUnanswered()
	s.mu.Lock()
	defer s.mu.Unlock()
	var fresh []Message
	for i := len(s.msgs) - 1; i >= 0 && s.msgs[i].Role == RoleUser; i-- {
		if s.msgs[i].Unanswered && !s.msgs[i].Noted {
			s.msgs[i].Noted = true
			fresh = append([]Message{s.msgs[i]}, fresh...)
		}
	}
	if len(fresh) > 0 {
		s.revision++
	}
	return fresh
}

// Update replaces the message with the given id by edit(copy). When an
// assistant loses tool calls, their results go with them. No hook fires.
func (s *Session) Update(id string, edit func(*Message)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.find("update", id)
	if err != nil {
		return err
	}
	m := s.msgs[i]
	edit(&m)
	m.ID, m.Role = s.msgs[i].ID, s.msgs[i].Role
	kept := map[string]bool{}
	for _, c := range m.ToolCalls {
		kept[c.ID] = true
	}
	var gone []string
	for _, c := range s.msgs[i].ToolCalls {
		if !kept[c.ID] {
			gone = append(gone, c.ID)
		}
	}
	s.msgs[i] = m
	s.msgs = dropResults(s.msgs, gone)
	s.revision++
	return nil
}

// index is the position of the message id, -1 when there is none; the
// caller holds mu.
func (s *Session) index(id string) int {
	for i := range s.msgs {
		if s.msgs[i].ID == id {
			return i
		}
	}
	return -1
}

// find is index for an operation that needs the message: ErrNotFound, with
// the operation named, when it is not there. The caller holds mu.
func (s *Session) find(op, id string) (int, error) {
	if i := s.index(id); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("%s %s: %w", op, id, ErrNotFound)
}

// UpdateToolResult rewrites the result of one call (say, to replace a
// placeholder with the real answer). No hook fires.
func (s *Session) UpdateToolResult(callID string, edit func(*Message)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.msgs) - 1; i >= 0; i-- {
		if s.msgs[i].Role == RoleTool && s.msgs[i].ToolCallID == callID {
			m := s.msgs[i]
			edit(&m)
			m.ID, m.Role, m.ToolCallID, m.Name = s.msgs[i].ID, RoleTool, callID, s.msgs[i].Name
			s.msgs[i] = m
			s.revision++
			return nil
		}
	}
	return fmt.Errorf("update result of %s: %w", callID, ErrNotFound)
}

// Remove deletes a message and, for an assistant, the results of its calls.
// A Tool message cannot be removed alone (that would orphan its call).
func (s *Session) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.find("remove", id)
	if err != nil {
		return err
	}
	m := s.msgs[i]
	if m.Role == RoleTool {
		return fmt.Errorf("remove %s: a tool result cannot be removed alone; update it or remove its assistant message", id)
	}
	s.msgs = append(s.msgs[:i:i], s.msgs[i+1:]...)
	var ids []string
	for _, c := range m.ToolCalls {
		ids = append(ids, c.ID)
	}
	s.msgs = dropResults(s.msgs, ids)
	s.revision++
	return nil
}

func dropResults(msgs []Message, callIDs []string) []Message {
	if len(callIDs) == 0 {
		return msgs
	}
	gone := map[string]bool{}
	for _, id := range callIDs {
		gone[id] = true
	}
	out := msgs[:0:0]
	for _, m := range msgs {
		if m.Role == RoleTool && gone[m.ToolCallID] {
			continue
		}
		out = append(out, m)
	}
	return out
}

// TruncateAt removes the message with the given id and everything after
// it, and returns what it removed. Cutting at a Tool message is refused:
// its call would lose its answer. No hook fires.
func (s *Session) TruncateAt(id string) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.find("truncate at", id)
	switch {
	case err != nil:
		return nil, err
	case s.msgs[i].Role == RoleTool:
		return nil, fmt.Errorf("truncate at %s: cannot cut between a tool call and its result", id)
	case s.folded(i):
		return nil, ErrFolded // cutting would drop the summary that stands for it
	}
	gone := append([]Message(nil), s.msgs[i:]...)
	s.msgs = s.msgs[:i:i]
	s.revision++
	return gone, nil
}

// ArchiveFrom takes the user message id and everything after it out of
// the conversation (a rewind): nothing sends them again, but they stay in
// the session (Rewound) and in its file, marked, so nothing is lost.
func (s *Session) ArchiveFrom(id string) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.find("rewind to", id)
	switch {
	case err != nil:
		return nil, err
	case s.msgs[i].Role != RoleUser:
		return nil, fmt.Errorf("rewind to %s: not a question of the person's", id)
	}
	gone := append([]Message(nil), s.msgs[i:]...)
	for j := range gone {
		gone[j].Rewound = true
	}
	s.rewound = append(s.rewound, gone...)
	s.msgs = s.msgs[:i:i]
	s.revision++
	return gone, nil
}

// KeepRewound gives a loaded session the rewound messages of its file.
func (s *Session) KeepRewound(msgs []Message) {
	s.mu.Lock()
	s.rewound = append(s.rewound, msgs...)
	s.mu.Unlock()
}

// Rewound are the messages rewinds took out, oldest first.
func (s *Session) Rewound() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.rewound...)
}

// SetSystem replaces the leading system message, or puts one first.
func (s *Session) SetSystem(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revision++
	if len(s.msgs) > 0 && s.msgs[0].Role == RoleSystem {
		s.msgs[0].Content = text
		return
	}
	s.msgs = append([]Message{System(text)}, s.msgs...)
}
