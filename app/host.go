package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/chatrepl/chat/session"
)

// sessionHost opens, saves and switches the session of a run. With
// --no-save it keeps everything in memory.
type sessionHost struct {
	stderr io.Writer
	store  session.Store
	cwd    string
	model  string
	noSave bool

	ifBusy string // --if-busy: "new" or "exit"
	// attached, when set, hears of each session the run moves to (its
	// checkpoints follow it).
	attached func(s *session.Session, id string)
	// cleared, when set, hears of /new (SessionStart hooks run again).
	cleared func()

	mu       sync.Mutex
	writer   *session.Writer
	unlock   func()          // releases the writer's session for other processes
	agentDef json.RawMessage // snapshot for the header of new sessions
}

func newSessionHost(spec Spec) *sessionHost {
	return &sessionHost{stderr: spec.Env.Stderr, store: session.Store{Dir: session.DefaultDir(spec.Env.Getenv)}, cwd: spec.Env.Workdir,
		model: spec.Config.Model, noSave: spec.NoSave, ifBusy: spec.IfBusy}
}

// open returns the run's session: the one --continue or --resume names
// (with the agent definition it was made with), else a new one, which
// begin saves once the agent is set up.
func (h *sessionHost) open(o Spec) (*session.Session, json.RawMessage, error) {
	var info session.Info
	var err error
	switch {
	case o.Resume != "":
		info, err = h.store.Find(o.Resume)
	case o.Continue:
		info, err = h.store.Latest(h.cwd)
		if errors.Is(err, session.ErrNoSession) {
			// Nothing to continue here: say so, and start one.
			fmt.Fprintf(h.stderr, "note: no session was started in %s yet; starting a new one\n", h.cwd)
			return session.New(), nil, nil
		}
	default:
		return session.New(), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s, l, err := h.load(info)
	var busy *session.BusyError
	if errors.As(err, &busy) && h.ifBusy != "exit" {
		// Never two writers in one session: the other keeps it.
		fmt.Fprintf(h.stderr, "note: %v; starting a new session (--if-busy exit stops instead)\n", err)
		return session.New(), nil, nil
	}
	return s, l.Header.Agent, err
}

// begin starts saving a new session, its header carrying the agent.
func (h *sessionHost) begin(s *session.Session, agentDef json.RawMessage) {
	h.mu.Lock()
	started := h.writer != nil
	h.agentDef = agentDef
	h.mu.Unlock()
	if !started {
		h.attachNew(s)
	}
}

func (h *sessionHost) load(info session.Info) (*session.Session, session.Loaded, error) {
	var unlock func()
	h.mu.Lock()
	held := h.writer != nil && h.writer.ID() == info.ID // this run's own session: already locked
	h.mu.Unlock()
	if !h.noSave && !held {
		var err error
		if unlock, err = h.store.Lock(info.ID); err != nil {
			return nil, session.Loaded{}, err
		}
	}
	s, l, err := h.loadLocked(info)
	if err != nil {
		if unlock != nil {
			unlock()
		}
		return nil, l, err
	}
	if unlock != nil {
		h.holdLock(unlock)
	}
	return s, l, nil
}

// loadLocked loads a session this process holds the lock of.
func (h *sessionHost) loadLocked(info session.Info) (*session.Session, session.Loaded, error) {
	l, err := session.Load(info.Path)
	if err != nil {
		return nil, l, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintln(h.stderr, "warning:", w)
	}
	s := session.New(l.Messages...)
	s.KeepRewound(l.Rewound)
	s.Prune()
	// A question left without an answer (its turn failed, or chat was
	// killed) is kept, but never sent again on its own. Said once: the
	// mark is saved.
	for _, m := range s.NoteUnanswered() {
		fmt.Fprintf(h.stderr, "note: an earlier message got no answer and is not sent again: %q\n", session.Title(m.Content))
	}
	if !h.noSave {
		w, backup, err := h.store.Continue(l)
		if err != nil {
			return nil, l, err
		}
		if backup != "" {
			fmt.Fprintf(h.stderr, "warning: the session file had lines chat cannot read; the original is kept at %s\n", backup)
		}
		h.setWriter(w, s)
		h.save(s) // the marks above, so they are said once
	}
	return s, l, nil
}

func (h *sessionHost) attachNew(s *session.Session) {
	if h.noSave {
		if h.attached != nil {
			h.attached(s, fmt.Sprintf("unsaved-%d-%s", os.Getpid(), session.NewID()))
		}
		return
	}
	h.mu.Lock()
	def := h.agentDef
	h.mu.Unlock()
	w, err := h.store.Begin(session.Header{Dir: h.cwd, Model: h.model, Agent: def})
	if err != nil {
		fmt.Fprintf(h.stderr, "warning: this session will not be saved: %v\n", err)
		return
	}
	unlock, err := h.store.Lock(w.ID())
	if err != nil {
		fmt.Fprintf(h.stderr, "warning: %v\n", err)
		unlock = func() {}
	}
	h.holdLock(unlock)
	h.setWriter(w, s)
	// The header and what the session holds (the system prompt) are
	// written while the first request goes out.
	w.SyncBehind(s)
}

// holdLock keeps the lock of the session now written, releasing the one
// held before.
func (h *sessionHost) holdLock(unlock func()) {
	h.mu.Lock()
	old := h.unlock
	h.unlock = unlock
	h.mu.Unlock()
	if old != nil {
		old()
	}
}

func (h *sessionHost) setWriter(w *session.Writer, s *session.Session) {
	h.mu.Lock()
	old := h.writer
	h.writer = w
	h.mu.Unlock()
	if old != nil {
		old.Close()
	}
	w.Attach(s)
	if h.attached != nil {
		h.attached(s, w.ID())
	}
}

// save writes what the last operation changed (healing, mutators).
func (h *sessionHost) save(s *session.Session) {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil {
		return
	}
	if err := w.Sync(s); err != nil {
		fmt.Fprintf(h.stderr, "warning: saving the session failed: %v\n", err)
	}
}

// saveBehind is save in the background: the caller never waits for the
// disk; Close (and the next save) wait for it.
func (h *sessionHost) saveBehind(s *session.Session) {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w != nil {
		w.SyncBehind(s)
	}
}

// title is the current session's title ("" when it has none, or is not
// saved).
func (h *sessionHost) title() string {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil {
		return ""
	}
	return w.Title()
}

// setTitle names the session with id and saves it; false when the run
// moved to another session meanwhile.
func (h *sessionHost) setTitle(id, title string, s *session.Session) bool {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil || w.ID() != id {
		return false
	}
	w.SetTitle(title)
	h.save(s)
	return true
}

// id is the current session's id ("" when not saved).
func (h *sessionHost) id() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.writer == nil {
		return ""
	}
	return h.writer.ID()
}

// transcript names the current session and its file ("" when not saved),
// for hooks.
func (h *sessionHost) transcript() (id, path string) {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil {
		return "", ""
	}
	w.Settle() // a hook may read it
	return w.ID(), w.Path()
}

// close closes the session file and says whether all of it was saved.
func (h *sessionHost) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var saveErr error
	if h.writer != nil {
		closeErr := h.writer.Close() // waits for the saves still going
		if saveErr = cmp.Or(h.writer.Err(), closeErr); saveErr != nil {
			fmt.Fprintf(h.stderr, "warning: the session file may be incomplete: %v\n", saveErr)
		}
	}
	if h.unlock != nil {
		h.unlock()
		h.unlock = nil
	}
	return saveErr
}

// The tui.SessionHost methods.

func (h *sessionHost) Changed(s *session.Session) { h.save(s) }
func (h *sessionHost) Started(s *session.Session) {
	h.attachNew(s)
	if h.cleared != nil {
		h.cleared()
	}
}
func (h *sessionHost) List() ([]session.Info, error) {
	return h.store.List()
}
func (h *sessionHost) Open(prefix string) (*session.Session, session.Info, error) {
	info, err := h.store.Find(prefix)
	if err != nil {
		return nil, info, err
	}
	s, _, err := h.load(info)
	return s, info, err
}
