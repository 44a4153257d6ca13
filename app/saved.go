package app

import (
	"fmt"
	"io"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/session"
)

// Saved is a saved session opened, and locked, to list or rewind its
// turns from outside a run (chat checkpoints, chat rewind). Close it.
type Saved struct {
	Info   session.Info
	Loaded session.Loaded
	// Turns are its questions, numbered from 1, with what each changed.
	Turns  []TurnRow
	store  *checkpoint.Store
	dir    string // the session store's folder
	unlock func()
}

// OpenSaved opens the session resume names (a unique id prefix), else the
// latest of env's working directory, and numbers its turns.
func OpenSaved(env Env, cfg config.Config, resume string) (*Saved, error) {
	st := session.Store{Dir: session.DefaultDir(env.Getenv)}
	var info session.Info
	var err error
	if resume != "" {
		info, err = st.Find(resume)
	} else {
		info, err = st.Latest(env.Workdir)
	}
	if err != nil {
		return nil, err
	}
	unlock, err := st.Lock(info.ID)
	if err != nil {
		return nil, fmt.Errorf("%w: end it first", err)
	}
	l, err := session.Load(info.Path)
	if err != nil {
		unlock()
		return nil, err
	}
	s := &Saved{Info: info, Loaded: l, store: CheckpointStore(env.Getenv, cfg, info.ID), dir: st.Dir, unlock: unlock}
	if s.Turns, err = TurnRows(l.Messages, s.store, info.Dir); err != nil {
		unlock()
		return nil, err
	}
	return s, nil
}

// Close releases the session for other processes.
func (s *Saved) Close() { s.unlock() }

// RewindOptions is what chat rewind is asked: the turn ("" the last),
// and what to put back.
type RewindOptions struct {
	Turn                       string
	FilesOnly, ConvOnly, Force bool
}

// Rewind puts wd's files and the conversation back as they were before
// the turn o names, and says what it did on w.
func (s *Saved) Rewind(w io.Writer, wd string, o RewindOptions) error {
	if o.FilesOnly && o.ConvOnly {
		return fmt.Errorf("--files-only and --conversation-only exclude each other")
	}
	if len(s.Turns) == 0 {
		return fmt.Errorf("session %s has no turns to rewind", session.ShortID(s.Info.ID))
	}
	n := len(s.Turns)
	if o.Turn != "" {
		if _, err := fmt.Sscan(o.Turn, &n); err != nil || n < 1 || n > len(s.Turns) {
			return fmt.Errorf("turn %q: give a number from 1 to %d (chat checkpoints lists them)", o.Turn, len(s.Turns))
		}
	}
	if !o.ConvOnly {
		res, any, err := s.RewindFiles(wd, n, o.Force)
		if err != nil {
			return err
		}
		WriteRewind(w, res, any, "--force")
	}
	if o.FilesOnly {
		return nil
	}
	gone, err := s.RewindConversation(n)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "conversation rewound to before turn %d (%d messages taken out; the session file keeps them): chat --continue goes on from there\n", n, gone)
	return nil
}

// RewindFiles puts the files of wd back as they were before turn n; any
// is false when no turn from n on changed a file.
func (s *Saved) RewindFiles(wd string, n int, force bool) (res checkpoint.Result, any bool, err error) {
	if s.Loaded.Header.Dir != "" && s.Loaded.Header.Dir != wd {
		return res, false, fmt.Errorf("session %s was made in %s: run chat rewind there", session.ShortID(s.Info.ID), s.Loaded.Header.Dir)
	}
	return RewindFiles(wd, s.Turns, n, s.store, force)
}

// RewindConversation cuts the session back to before turn n's question
// and saves it; it returns how many messages were taken out (the session
// file keeps them, marked).
func (s *Saved) RewindConversation(n int) (int, error) {
	sess := session.New(s.Loaded.Messages...)
	sess.KeepRewound(s.Loaded.Rewound)
	gone, err := sess.ArchiveFrom(s.Turns[n-1].Question.ID)
	if err != nil {
		return 0, err
	}
	w, _, err := session.Store{Dir: s.dir}.Continue(s.Loaded)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	return len(gone), w.Sync(sess)
}
