package app

import (
	"fmt"

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
