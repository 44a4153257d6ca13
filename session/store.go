package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/atomicfile"
	"github.com/chatrepl/chat/internal/clip"
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

// Loaded is a session read from disk.
type Loaded struct {
	Path     string
	Header   Header
	Messages []Message
	// Rewound are the messages rewinds took out of the conversation.
	Rewound []Message
	// Warnings name what was dropped (a torn last line, a garbled line).
	Warnings []string
}

// Load reads a session file. A partially written last line (a crash, a
// full disk) is dropped with a warning; a garbled line elsewhere is
// skipped with a warning naming it; nothing else is lost. An unknown
// schema version and a message without an id are errors.
func Load(path string) (Loaded, error) {
	l := Loaded{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return l, err
	}
	lines := bytes.Split(data, []byte("\n"))
	torn := len(data) > 0 && data[len(data)-1] != '\n'
	if !torn {
		lines = lines[:len(lines)-1] // the empty piece after the final newline
	}
	if len(lines) == 0 {
		return l, fmt.Errorf("%s: empty session file", path)
	}
	if err := json.Unmarshal(lines[0], &l.Header); err != nil || l.Header.Type != "header" {
		return l, fmt.Errorf("%s: line 1 is not a session header", path)
	}
	if l.Header.SchemaVersion != SchemaVersion {
		return l, fmt.Errorf("%s: schema version %d is not one this chat reads (it reads %d); use a newer chat", path, l.Header.SchemaVersion, SchemaVersion)
	}
	l.Messages = make([]Message, 0, len(lines)-1)
	started := map[string]bool{}
	for i, raw := range lines[1:] {
		n := i + 2
		var st startedLine
		if json.Unmarshal(raw, &st) == nil && st.Type == "started" {
			started[st.CallID] = true
			continue
		}
		var ln line
		if err := json.Unmarshal(raw, &ln); err != nil || ln.Type != lineOf(ln.Message).Type {
			if torn && n == len(lines) {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: dropped a partially written last line (%d bytes); everything before it is kept", path, len(raw)))
			} else {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s line %d: not a message, skipped (%s)", path, n, clip.String(string(raw), 60)))
			}
			continue
		}
		if ln.ID == "" {
			return l, fmt.Errorf("%s line %d: a message without an id; refusing to make one up", path, n)
		}
		if problem := malformed(ln.Message); problem != "" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s line %d: %s, skipped", path, n, problem))
			continue
		}
		if ln.Rewound {
			l.Rewound = append(l.Rewound, ln.Message)
			continue
		}
		l.Messages = append(l.Messages, ln.Message)
	}
	for i := range l.Messages {
		for j := range l.Messages[i].ToolCalls {
			if c := &l.Messages[i].ToolCalls[j]; started[c.ID] {
				c.Started = true
			}
		}
	}
	return l, nil
}

// malformed names what makes a message unusable in a request.
func malformed(m Message) string {
	switch m.Role {
	case RoleSystem, RoleUser:
	case RoleAssistant:
		seen := map[string]bool{}
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Name == "" || seen[c.ID] {
				return "a tool call without an id or a name, or repeated"
			}
			seen[c.ID] = true
		}
	case RoleTool:
		if m.ToolCallID == "" {
			return "a tool result that names no call"
		}
	case RoleSummary:
		if strings.TrimSpace(m.Content) == "" {
			return "an empty summary"
		}
	default:
		return fmt.Sprintf("a message with role %q", m.Role)
	}
	return ""
}

// Info describes a stored session for listing.
type Info struct {
	ID       string    `json:"id"`
	Path     string    `json:"path"`
	Dir      string    `json:"cwd"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Title    string    `json:"title"`
	Messages int       `json:"messages"`
	// Model is the model the session started with; Usage adds up what its
	// completions reported.
	Model string `json:"model,omitempty"`
	Usage Usage  `json:"usage"`
}

// List returns the stored sessions, most recently updated first.
func (st Store) List() ([]Info, error) {
	paths, err := filepath.Glob(filepath.Join(st.Dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(paths))
	for _, p := range paths {
		if info, err := readInfo(p); err == nil {
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// readInfo reads the header, counts the lines and takes the title from
// the first user message, without decoding every message.
func readInfo(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	first, err := r.ReadBytes('\n')
	var h Header
	if err != nil || json.Unmarshal(first, &h) != nil || h.Type != "header" {
		return Info{}, fmt.Errorf("%s: not a session file", path)
	}
	info := Info{ID: h.ID, Path: path, Dir: h.Dir, Created: h.Created, Updated: st.ModTime(), Model: h.Model}
	for {
		raw, err := r.ReadBytes('\n')
		if len(raw) > 0 && raw[len(raw)-1] == '\n' && !bytes.HasPrefix(raw, []byte(`{"type":"compaction"`)) {
			info.Messages++
			if info.Title == "" && bytes.Contains(raw, []byte(`"role":"user"`)) {
				var ln line
				if json.Unmarshal(raw, &ln) == nil && ln.Role == RoleUser {
					info.Title = Title(ln.Content)
				}
			}
			if bytes.Contains(raw, []byte(`"usage":{`)) {
				var ln line
				if json.Unmarshal(raw, &ln) == nil && ln.Usage != nil {
					info.Usage = info.Usage.Add(*ln.Usage)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, err
		}
	}
	return info, nil
}

// ShortID is the form of an id that lists show and that --resume takes:
// the first 13 characters (time-ordered ids share their first 8).
func ShortID(id string) string {
	if r := []rune(id); len(r) > 13 {
		return string(r[:13])
	}
	return id
}

// Title is a session's short title, from its first user message.
func Title(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:59]) + "…"
	}
	return t
}

// Find returns the session whose id is id or starts with it; an ambiguous
// prefix is an error that lists the candidates.
func (st Store) Find(prefix string) (Info, error) {
	if strings.TrimSpace(prefix) == "" {
		return Info{}, errors.New("no session id given; chat sessions list shows them")
	}
	all, err := st.List()
	if err != nil {
		return Info{}, err
	}
	var match []Info
	for _, s := range all {
		if s.ID == prefix {
			return s, nil
		}
		if strings.HasPrefix(s.ID, prefix) {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 0:
		return Info{}, fmt.Errorf("%w %q in %s; chat sessions list shows them", ErrNoSession, prefix, st.Dir)
	case 1:
		return match[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of the id:", prefix, len(match))
	for _, s := range match {
		fmt.Fprintf(&b, "\n  %s  %s", s.ID, s.Title)
	}
	return Info{}, errors.New(b.String())
}

// Latest is the most recently updated session started in dir.
func (st Store) Latest(dir string) (Info, error) {
	all, err := st.List()
	if err != nil {
		return Info{}, err
	}
	for _, s := range all {
		if s.Dir == dir {
			return s, nil
		}
	}
	return Info{}, fmt.Errorf("%w for %s yet; chat sessions list shows the others", ErrNoSession, dir)
}

// Remove deletes a session file.
func (st Store) Remove(id string) error {
	_ = os.Remove(st.lockPath(id))
	return os.Remove(st.path(id))
}

// AgoText says how long ago something was, for lists of sessions.
func AgoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
