package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/atomicfile"
	"github.com/chatrepl/chat/internal/xdg"
)

// SchemaVersion is the version of the session file format written here.
const SchemaVersion = 1

// ErrNoSession is returned when no stored session matches.
var ErrNoSession = errors.New("no such session")

// Header is the first line of a session file.
type Header struct {
	Type          string          `json:"type"` // "header"
	SchemaVersion int             `json:"schema_version"`
	ID            string          `json:"id"`
	Created       time.Time       `json:"created"`
	Dir           string          `json:"cwd"`
	Model         string          `json:"model,omitempty"`
	Agent         json.RawMessage `json:"agent,omitempty"` // the agent definition snapshot
	// Title is the session's title as a model wrote it ("" until then:
	// lists take the first question).
	Title string `json:"title,omitempty"`
}

// line is one message line of a session file.
type line struct {
	Type string `json:"type"` // "message", or "compaction" for a summary record
	Message
}

func lineOf(m Message) line {
	if m.Role == RoleSummary {
		return line{Type: "compaction", Message: m}
	}
	return line{Type: "message", Message: m}
}

// Store keeps sessions as JSON-lines files in Dir (mode 0700), one file
// per session (mode 0600): a header line, then a line per message,
// appended and fsynced as each is produced. Nothing else is written: no
// API key or header of a request ever reaches the file.
type Store struct{ Dir string }

// DefaultDir is $XDG_DATA_HOME/chat/sessions (~/.local/share/… without it).
func DefaultDir(getenv func(string) string) string { return xdg.Data.Chat(getenv, "sessions") }

func (st Store) path(id string) string { return filepath.Join(st.Dir, id+".jsonl") }

func (st Store) lockPath(id string) string { return filepath.Join(st.Dir, id+".lock") }

// ensureDir makes the store's directory, or makes an existing one
// private: a directory others can write to could have a session swapped
// under us. One that belongs to someone else is refused.
func (st Store) ensureDir() error {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	fi, err := os.Lstat(st.Dir)
	if err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("session store %s is not a directory", st.Dir)
	}
	if fi.Mode().Perm()&0o022 == 0 {
		return nil
	}
	if owner, ok := ownerOf(fi); ok && owner != os.Getuid() {
		return fmt.Errorf("session store %s can be written by others and belongs to another user; refusing to use it", st.Dir)
	}
	if err := os.Chmod(st.Dir, 0o700); err != nil {
		return fmt.Errorf("session store %s can be written by others and its mode cannot be fixed: %w", st.Dir, err)
	}
	return nil
}

// Create starts a new session file and returns its writer.
func (st Store) Create(h Header) (*Writer, error) {
	w, err := st.Begin(h)
	if err != nil {
		return nil, err
	}
	if err := w.rewrite(nil); err != nil {
		return nil, err
	}
	w.count = 0
	return w, nil
}

// Begin starts a new session whose file the first Sync writes (header and
// all): a run that starts with a request does not wait for the disk first.
func (st Store) Begin(h Header) (*Writer, error) {
	if err := st.ensureDir(); err != nil {
		return nil, err
	}
	h.Type, h.SchemaVersion = "header", SchemaVersion
	if h.ID == "" {
		h.ID = NewID()
	}
	if h.Created.IsZero() {
		h.Created = time.Now().UTC()
	}
	return &Writer{path: st.path(h.ID), header: h, count: -1}, nil
}

// Continue opens the file of a loaded session for appending. The history
// may differ from the file (pruned, a line that could not be read): the
// first Sync rewrites it, so when lines were skipped the original is first
// copied aside, and backup names the copy.
func (st Store) Continue(l Loaded) (w *Writer, backup string, err error) {
	if err := st.ensureDir(); err != nil {
		return nil, "", err
	}
	if len(l.Warnings) > 0 {
		backup = fmt.Sprintf("%s.damaged-%s", l.Path, time.Now().UTC().Format("20060102T150405.000"))
		if err := copyFile(l.Path, backup); err != nil {
			return nil, "", fmt.Errorf("session %s has lines chat cannot read, and keeping a copy of it failed: %w", l.Path, err)
		}
	}
	return &Writer{path: l.Path, header: l.Header, count: -1}, backup, nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Writer appends one session's messages to its file.
type Writer struct {
	mu     sync.Mutex
	path   string
	header Header
	f      *os.File
	count  int // messages in the file; -1 when the file must be rewritten
	rev    int // the session revision the file matches
	err    error
	// sync flushes an appended file to disk; a seam so a test can see
	// every append is fsynced.
	sync func(*os.File) error
	// behind is closed when the newest background save is done (nil
	// before the first).
	behindMu sync.Mutex
	behind   chan struct{}
}

// ID is the session's id.
func (w *Writer) ID() string { return w.header.ID }

// Path is the session file.
func (w *Writer) Path() string { return w.path }

// Title is the session's title ("" when none was set).
func (w *Writer) Title() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.header.Title
}

// SetTitle names the session: the header changes, so the next Sync
// rewrites the file (atomically, as any rewrite).
func (w *Writer) SetTitle(title string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.header.Title == title {
		return
	}
	w.header.Title = title
	if w.count >= 0 {
		w.count = -1
	}
}

// Attach saves s as it changes: every input and every produced message is
// written (and fsynced) when it is added. Call Sync after operations that
// are not appends (healing, mutators) when they are done.
//
// An input (the person's message, a system prompt) is written in the
// background, so its request does not wait for the disk; a produced
// message, which Sync writes at once, carries the inputs before it, and
// Session.Settle waits for them (the agent settles before it shows an
// answer).
func (w *Writer) Attach(s *Session) {
	s.OnInput(func(Message) { w.SyncBehind(s) })
	s.OnMessage(func(Message) { _ = w.Sync(s) })
	s.OnStart(func(c ToolCall) { _ = w.started(c.ID) })
	s.OnSettle(w.Settle)
}

// SyncBehind is Sync in the background; Settle waits for it, Close too.
// An error is kept for Err, and the next Sync tries again.
func (w *Writer) SyncBehind(s *Session) {
	done := make(chan struct{})
	w.behindMu.Lock()
	w.behind = done
	w.behindMu.Unlock()
	go func() {
		defer close(done)
		_ = w.Sync(s)
	}()
}

// Settle waits for the background saves: each saves all that was added
// before it started, so waiting for the newest is enough.
func (w *Writer) Settle() {
	w.behindMu.Lock()
	done := w.behind
	w.behindMu.Unlock()
	if done != nil {
		<-done
	}
}

// startedLine records, appended and fsynced before the call runs, that a
// tool call began.
type startedLine struct {
	Type   string `json:"type"` // "started"
	CallID string `json:"call_id"`
}

// started appends a started line. A rewrite later carries the mark in the
// call itself.
func (w *Writer) started(callID string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.count < 0 {
		return nil // the next Sync rewrites the file, marks included
	}
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			w.err = err
			return err
		}
		w.f = f
	}
	var buf bytes.Buffer
	if err := encodeLine(&buf, startedLine{Type: "started", CallID: callID}); err != nil {
		return err
	}
	if _, err := w.f.Write(buf.Bytes()); err != nil {
		w.err = err
		return err
	}
	if w.sync != nil {
		return w.sync(w.f)
	}
	return w.f.Sync()
}

// Sync makes the file equal to s: it appends what is new, or rewrites the
// file atomically when history changed otherwise.
func (w *Writer) Sync(s *Session) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Most syncs follow an append: copy only what is new, not the
	// whole history each time.
	if w.count >= 0 {
		if tail, n, rev := s.Since(w.count); rev == w.rev && n >= w.count {
			if err := w.append(tail); err != nil {
				w.err = err
				return err
			}
			w.count = n
			return nil
		}
	}
	n, rev, err := w.rewriteInChunks(s)
	if errors.Is(err, errNotInChunks) {
		var msgs []Message
		msgs, n, rev = s.Since(0)
		err = w.rewrite(WithRewound(msgs, s.Rewound()))
	}
	if err != nil {
		w.err = err
		return err
	}
	w.count, w.rev = n, rev
	return nil
}

// errNotInChunks: the history must be copied whole to be written, its
// rewound messages put back among the others, or it was edited while the
// chunks were written.
var errNotInChunks = errors.New("the history cannot be written in chunks")

// rewriteChunk is how many messages a rewrite copies at a time.
const rewriteChunk = 256

// rewriteInChunks rewrites the file from s a chunk at a time, so a long
// history is not copied whole at every compaction (those copies, each
// larger than the last, left the heap of a long session fragmented). The
// file gets the history as it was at the first chunk: messages appended
// meanwhile are left to the next append; an edit meanwhile leaves the
// file as it was.
func (w *Writer) rewriteInChunks(s *Session) (n, rev int, err error) {
	if len(s.Rewound()) > 0 {
		return 0, 0, errNotInChunks
	}
	buf := make([]Message, rewriteChunk)
	var k int
	k, n, rev = s.Chunk(buf, 0)
	err = w.rewriteWith(func(emit func(Message) error) error {
		for i := 0; i < n; i += k {
			if i > 0 {
				var r int
				if k, _, r = s.Chunk(buf, i); r != rev || k == 0 {
					return errNotInChunks
				}
			}
			for _, m := range buf[:min(k, n-i)] {
				if err := emit(m); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return n, rev, err
}

// Err is the last write error (a full disk, say), nil when all is saved.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close waits for the background saves and closes the file.
func (w *Writer) Close() error {
	w.Settle()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

func (w *Writer) append(msgs []Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("session %s: %w", w.path, err)
		}
		w.f = f
	}
	var buf bytes.Buffer
	for _, m := range msgs {
		if err := encodeLine(&buf, lineOf(m)); err != nil {
			return err
		}
	}
	if _, err := w.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("session %s: %w", w.path, err)
	}
	if w.sync != nil {
		return w.sync(w.f)
	}
	return w.f.Sync()
}

// rewrite replaces the file atomically (temp file, fsync, rename, fsync
// of the directory): a crash leaves either the old file or the new one. The
// lines are streamed, so a long session is not held twice in memory.
func (w *Writer) rewrite(msgs []Message) error {
	return w.rewriteWith(func(emit func(Message) error) error {
		for _, m := range msgs {
			if err := emit(m); err != nil {
				return err
			}
		}
		return nil
	})
}

// rewriteWith is rewrite with the messages given one at a time by each.
func (w *Writer) rewriteWith(each func(emit func(Message) error) error) error {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	err := atomicfile.WriteWith(w.path, 0o600, func(out io.Writer) error {
		if err := encodeLine(out, w.header); err != nil {
			return err
		}
		return each(func(m Message) error { return encodeLine(out, lineOf(m)) })
	})
	if err != nil {
		return fmt.Errorf("session %s: %w", w.path, err)
	}
	return nil
}

// WithRewound puts the rewound messages back among the others, in the
// order they were made (for the file, and to show a whole session).
func WithRewound(msgs, rewound []Message) []Message {
	if len(rewound) == 0 {
		return msgs
	}
	all := append(append([]Message(nil), msgs...), rewound...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all
}

func encodeLine(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v) // Encode ends the line
}
