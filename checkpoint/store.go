package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/atomicfile"
)

// Defaults for a Store's bounds.
const (
	DefaultMaxFileSize = 8 << 20
	DefaultMaxTotal    = 1 << 30
)

// Store is one session's checkpoints, under Dir. Safe for concurrent use.
type Store struct {
	Dir         string
	MaxFileSize int64 // a bigger file is noticed, not stored
	MaxTotal    int64 // stored content past this prunes the oldest checkpoints

	mu     sync.Mutex
	pk     packs
	loaded bool
	infos  []Info
	last   map[string]Entry // the state of the newest checkpoint
	total  int64            // bytes of stored content; -1 unknown
}

// Info is one checkpoint.
type Info struct {
	Seq   int       `json:"seq"`
	Turn  string    `json:"turn"`  // the turn it belongs to (the caller's id)
	Label string    `json:"label"` // "before write_file", "after"
	Time  time.Time `json:"time"`
	// Note is what the caller says of the state (the language servers'
	// verdict on the turn that ended here).
	Note string `json:"note,omitempty"`
}

// manifest is a checkpoint on disk: what changed since the one before
// (Full: every path).
type manifest struct {
	Info
	Full    bool             `json:"full,omitempty"`
	Changed map[string]Entry `json:"changed,omitempty"`
	Removed []string         `json:"removed,omitempty"`
}

func (st *Store) maxFileSize() int64 {
	if st.MaxFileSize > 0 {
		return st.MaxFileSize
	}
	return DefaultMaxFileSize
}

func (st *Store) maxTotal() int64 {
	if st.MaxTotal > 0 {
		return st.MaxTotal
	}
	return DefaultMaxTotal
}

func (st *Store) snapPath(seq int) string {
	return filepath.Join(st.Dir, "snaps", fmt.Sprintf("%08d.json", seq))
}

// load reads the manifests once (a resumed session's checkpoints).
func (st *Store) load() error {
	if st.loaded {
		return nil
	}
	st.total = -1
	st.pk.load(st.Dir)
	paths, _ := filepath.Glob(filepath.Join(st.Dir, "snaps", "*.json"))
	sort.Strings(paths)
	state := map[string]Entry{}
	for _, p := range paths {
		m, err := readManifest(p)
		if err != nil {
			continue // a torn manifest (a crash while writing) is skipped
		}
		state = m.apply(state)
		st.infos = append(st.infos, m.Info)
	}
	st.last, st.loaded = state, true
	return nil
}

func readManifest(p string) (manifest, error) {
	var m manifest
	b, err := os.ReadFile(p)
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(b, &m)
}

// apply is prev with m's changes.
func (m manifest) apply(prev map[string]Entry) map[string]Entry {
	out := make(map[string]Entry, len(prev)+len(m.Changed))
	if !m.Full {
		for p, e := range prev {
			out[p] = e
		}
	}
	for _, p := range m.Removed {
		delete(out, p)
	}
	for p, e := range m.Changed {
		out[p] = e
	}
	return out
}

// Take records root's state as a checkpoint of turn. note is non-empty
// when older checkpoints had to be removed to stay within MaxTotal.
func (st *Store) Take(root, turn, label string) (info Info, note string, err error) {
	return st.TakeNoted(root, turn, label, "")
}

// TakeNoted is Take with a note of the caller's kept with the checkpoint.
func (st *Store) TakeNoted(root, turn, label, about string) (info Info, note string, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return info, "", err
	}
	m := manifest{Info: Info{Seq: 1, Turn: turn, Label: label, Time: time.Now().UTC(), Note: about}, Changed: map[string]Entry{}}
	if n := len(st.infos); n > 0 {
		m.Seq = st.infos[n-1].Seq + 1
	} else {
		m.Full = true
	}
	st.pk.begin(m.Seq)
	state, written, err := st.scan(root, st.last, false)
	if ferr := st.pk.finish(st.Dir, err == nil); err == nil {
		err = ferr
	}
	if err != nil {
		return info, "", err
	}
	for p, e := range state {
		if old, ok := st.last[p]; !ok || old != e {
			m.Changed[p] = e
		}
	}
	for p := range st.last {
		if _, ok := state[p]; !ok {
			m.Removed = append(m.Removed, p)
		}
	}
	sort.Strings(m.Removed)
	if err := writeJSON(st.snapPath(m.Seq), m); err != nil {
		return info, "", err
	}
	st.infos, st.last = append(st.infos, m.Info), state
	if st.total >= 0 {
		st.total += written
	}
	if written > 0 {
		note, err = st.prune()
	}
	return m.Info, note, err
}

// Peek reads root's state as a checkpoint would, storing nothing: what
// the files are now, to compare a turn chat never finished with.
func (st *Store) Peek(root string) (map[string]Entry, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return nil, err
	}
	state, _, err := st.scan(root, st.last, true)
	return state, err
}

// SinceLast lists what changed in root since the newest checkpoint,
// storing nothing (everything, as created, when there is none).
func (st *Store) SinceLast(root string) ([]Change, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return nil, err
	}
	state, _, err := st.scan(root, st.last, true)
	if err != nil {
		return nil, err
	}
	return Diff(st.last, state), nil
}

func writeJSON(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(p, b, 0o600)
}

// Checkpoints lists the checkpoints, oldest first.
func (st *Store) Checkpoints() ([]Info, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return nil, err
	}
	return append([]Info(nil), st.infos...), nil
}

// State is the state a checkpoint recorded.
func (st *Store) State(seq int) (map[string]Entry, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return nil, err
	}
	return st.stateLocked(seq)
}

func (st *Store) stateLocked(seq int) (map[string]Entry, error) {
	state := map[string]Entry{}
	for _, info := range st.infos {
		if info.Seq > seq {
			break
		}
		m, err := readManifest(st.snapPath(info.Seq))
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", info.Seq, err)
		}
		state = m.apply(state)
		if info.Seq == seq {
			return state, nil
		}
	}
	return nil, fmt.Errorf("no checkpoint %d", seq)
}

// prune removes the oldest checkpoints while the stored content is over
// MaxTotal (the newest is always kept), then the content no checkpoint
// refers to.
func (st *Store) prune() (string, error) {
	if st.total < 0 {
		st.total = dirSize(filepath.Join(st.Dir, "objects")) + dirSize(filepath.Join(st.Dir, "packs"))
	}
	if st.total <= st.maxTotal() || len(st.infos) < 2 {
		return "", nil
	}
	dropped := 0
	for st.total > st.maxTotal() && len(st.infos) > 1 {
		next, err := st.stateLocked(st.infos[1].Seq)
		if err != nil {
			return "", err
		}
		m, err := readManifest(st.snapPath(st.infos[1].Seq))
		if err != nil {
			return "", err
		}
		m.Full, m.Changed, m.Removed = true, next, nil
		if err := writeJSON(st.snapPath(m.Seq), m); err != nil {
			return "", err
		}
		os.Remove(st.snapPath(st.infos[0].Seq))
		st.infos = st.infos[1:]
		dropped++
		if err := st.collect(); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("checkpoints passed %d MiB: the %d oldest were removed; rewinding is possible from %s on",
		st.maxTotal()>>20, dropped, st.infos[0].Time.Local().Format("15:04:05")), nil
}

// collect deletes objects no checkpoint refers to and recounts the total.
func (st *Store) collect() error {
	used := map[string]bool{}
	for _, info := range st.infos {
		m, err := readManifest(st.snapPath(info.Seq))
		if err != nil {
			return err
		}
		for _, e := range m.Changed {
			used[e.Hash] = true
		}
	}
	var total int64
	objects := filepath.Join(st.Dir, "objects")
	_ = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(objects, p)
		if !used[strings.ReplaceAll(rel, string(filepath.Separator), "")] {
			os.Remove(p)
			return nil
		}
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		return nil
	})
	st.total = total + st.pk.drop(st.Dir, used)
	return nil
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Remove deletes every checkpoint of the store.
func (st *Store) Remove() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.loaded, st.infos, st.last = false, nil, nil
	if err := os.RemoveAll(st.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
