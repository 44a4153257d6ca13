package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/chatrepl/chat/internal/nofollow"
)

// Turn is what one turn did to the files: the state before its first
// change and after its last.
type Turn struct {
	ID            string
	Before, After int // checkpoint seqs; After is 0 when the turn never finished
	// Interrupted: chat stopped during the turn (no checkpoint at its
	// end); its changes count up to the next turn, or up to now.
	Interrupted bool
	Changes     []Change
	// Note is what its last checkpoint's note said.
	Note string
	left map[string]*Entry // how the turn left each changed path (nil: gone)
}

// Turns lists the turns that have checkpoints, oldest first, with what
// each changed. A turn that did not finish (chat was killed) counts up to
// the next turn's first checkpoint, or up to now (current, may be nil).
func (st *Store) Turns(current map[string]Entry) ([]Turn, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.load(); err != nil {
		return nil, err
	}
	return st.turnsLocked(current)
}

func (st *Store) turnsLocked(current map[string]Entry) ([]Turn, error) {
	var turns []Turn
	for _, info := range st.infos {
		if info.Turn == "" {
			continue // a checkpoint of the person's (before a rewind)
		}
		if n := len(turns); n == 0 || turns[n-1].ID != info.Turn {
			turns = append(turns, Turn{ID: info.Turn, Before: info.Seq})
		}
		if info.Label == "after" {
			turns[len(turns)-1].After = info.Seq
		}
		if info.Note != "" {
			turns[len(turns)-1].Note = info.Note
		}
	}
	for i := range turns {
		turns[i].Interrupted = turns[i].After == 0
	}
	// Where each turn ends: its "after", else the next turn's first
	// checkpoint, else now (0).
	ends := make([]int, len(turns))
	for i := range turns {
		switch {
		case turns[i].After > 0:
			ends[i] = turns[i].After
		case i+1 < len(turns):
			ends[i] = turns[i+1].Before
		}
	}
	// One pass over the manifests: a session with thousands of
	// checkpoints is read once, not once per turn.
	state := map[string]Entry{}
	var before map[string]Entry
	open := -1 // the turn whose "before" is held
	next := 0  // the next turn to open
	for _, info := range st.infos {
		m, err := readManifest(st.snapPath(info.Seq))
		if err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", info.Seq, err)
		}
		state = m.apply(state)
		if open >= 0 && ends[open] == info.Seq {
			turns[open].Changes, turns[open].left = diffLeft(before, state)
			open = -1
		}
		if next < len(turns) && turns[next].Before == info.Seq {
			before, open = maps.Clone(state), next
			next++
		}
	}
	if open >= 0 {
		now := current
		if now == nil {
			now = st.last
		}
		turns[open].Changes, turns[open].left = diffLeft(before, now)
	}
	return turns, nil
}

// diffLeft is what changed from a to b, and how b has each changed path
// (nil: gone).
func diffLeft(a, b map[string]Entry) ([]Change, map[string]*Entry) {
	changes := Diff(a, b)
	left := make(map[string]*Entry, len(changes))
	for _, c := range changes {
		if e, ok := b[c.Path]; ok {
			left[c.Path] = &e
		} else {
			left[c.Path] = nil
		}
	}
	return changes, left
}

// Result is what a rewind did.
type Result struct {
	Restored []Change // what was put back: '+' recreated, '~' restored, '-' removed
	// Conflicts are paths the person changed after the agent did: left
	// alone unless forced.
	Conflicts []string
	// Unrestorable are paths the agent changed whose earlier content was
	// not stored (over the size limit) or was damaged (a crash while it
	// was written).
	Unrestorable []string
	// Refused are paths a rewind never writes: inside a .git folder, or
	// behind a folder that is now a symbolic link (a restore through it
	// would write wherever the link points).
	Refused []string
}

// Rewind puts the files of root back as they were before turn (and every
// later one) changed them. Only paths those turns changed are touched; a
// path that differs now from how the agent left it is a conflict, left
// alone unless force. A checkpoint of the present is taken first, so a
// rewind can itself be undone.
func (st *Store) Rewind(root, turn string, force bool) (Result, error) {
	var res Result
	if _, _, err := st.Take(root, "", "before rewind"); err != nil {
		return res, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	current := st.last
	target, left, err := st.rewindTargetLocked(turn, current)
	if err != nil {
		return res, err
	}
	rootDir, err := os.Open(root)
	if err != nil {
		return res, err
	}
	defer rootDir.Close()
	r := int(rootDir.Fd())
	paths := slices.Sorted(maps.Keys(left))
	for _, p := range paths {
		want, had := target[p]
		kind, fate := decide(p, current, target, left[p], force)
		if fate != restore {
			res.add(fate, p)
			continue
		}
		if had {
			err = st.put(r, p, want)
		} else {
			err = remove(r, p)
		}
		if errors.Is(err, errDamaged) {
			res.Unrestorable = append(res.Unrestorable, p)
			continue
		}
		if errors.Is(err, nofollow.ErrLinked) {
			res.Refused = append(res.Refused, p)
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("restoring %s: %w", p, err)
		}
		res.Restored = append(res.Restored, Change{Path: p, Kind: kind})
	}
	removeEmptied(r, res.Restored, target)
	return res, nil
}

// rewindTargetLocked is the state before turn, and how the agent left
// each path that turn and every later one changed (nil: gone).
func (st *Store) rewindTargetLocked(turn string, current map[string]Entry) (map[string]Entry, map[string]*Entry, error) {
	turns, err := st.turnsLocked(current)
	if err != nil {
		return nil, nil, err
	}
	from := slices.IndexFunc(turns, func(t Turn) bool { return t.ID == turn })
	if from < 0 {
		return nil, nil, fmt.Errorf("no checkpoint of that turn (it changed no files, or its checkpoints were pruned)")
	}
	target, err := st.stateLocked(turns[from].Before)
	if err != nil {
		return nil, nil, err
	}
	left := map[string]*Entry{}
	for _, t := range turns[from:] {
		for p, e := range t.left {
			left[p] = e
		}
	}
	return target, left, nil
}

// fate is what a rewind does with one path.
type fate int

const (
	unchanged    fate = iota // already as it was
	restore                  // put back
	conflict                 // the person changed it since: left alone
	refused                  // inside .git
	unrestorable             // its earlier content was not stored
)

// decide is the three-way rule for path p: as it is now (current), as it
// was before the turn (target), as the agent left it (agent).
func decide(p string, current, target map[string]Entry, agent *Entry, force bool) (byte, fate) {
	cur, exists := current[p]
	want, had := target[p]
	switch {
	case exists == had && (!exists || cur.same(want)):
		return 0, unchanged
	case !force && (exists != (agent != nil) || (exists && !cur.same(*agent))):
		return 0, conflict
	case slices.Contains(strings.Split(p, "/"), ".git"):
		return 0, refused
	case had && want.TooBig:
		return 0, unrestorable
	case !had:
		return '-', restore
	case !exists:
		return '+', restore
	}
	return '~', restore
}

func (r *Result) add(f fate, p string) {
	switch f {
	case conflict:
		r.Conflicts = append(r.Conflicts, p)
	case refused:
		r.Refused = append(r.Refused, p)
	case unrestorable:
		r.Unrestorable = append(r.Unrestorable, p)
	}
}

// Preview is what Rewind would do now, changing nothing: the paths it
// would put back, and those it would leave alone and why.
func (st *Store) Preview(root, turn string, force bool) (Result, error) {
	var res Result
	now, err := st.Peek(root)
	if err != nil {
		return res, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	target, left, err := st.rewindTargetLocked(turn, now)
	if err != nil {
		return res, err
	}
	for _, p := range slices.Sorted(maps.Keys(left)) {
		kind, f := decide(p, now, target, left[p], force)
		if f == restore {
			res.Restored = append(res.Restored, Change{Path: p, Kind: kind})
		} else {
			res.add(f, p)
		}
	}
	return res, nil
}

// FileChange is one path a turn changed, with its content before the
// turn and as the turn left it (nil: absent; TooBig: not stored).
type FileChange struct {
	Change
	Before, After []byte
	TooBig        bool
}

// TurnChanges is what turn did to each file, for a diff. A turn that
// did not finish counts up to root as it is now.
func (st *Store) TurnChanges(root, turn string) ([]FileChange, error) {
	now, err := st.Peek(root)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	turns, err := st.turnsLocked(now)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(turns, func(t Turn) bool { return t.ID == turn })
	if i < 0 {
		return nil, fmt.Errorf("no checkpoint of that turn (it changed no files, or its checkpoints were pruned)")
	}
	before, err := st.stateLocked(turns[i].Before)
	if err != nil {
		return nil, err
	}
	var out []FileChange
	for _, c := range turns[i].Changes {
		fc := FileChange{Change: c}
		if e, ok := before[c.Path]; ok {
			fc.TooBig = fc.TooBig || e.TooBig
			if !e.TooBig {
				fc.Before, _ = st.readObject(e.Hash)
			}
		}
		if e := turns[i].left[c.Path]; e != nil {
			fc.TooBig = fc.TooBig || e.TooBig
			if !e.TooBig {
				// A turn chat never finished has no "after": its files
				// are compared as they are now (Peek stores nothing).
				if fc.After, err = st.readObject(e.Hash); err != nil {
					fc.After, err = st.readNow(root, c.Path, e.Hash)
					if err != nil {
						return nil, err
					}
				}
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// readNow is the file at rel under root as it is now, when its content
// still has the hash hash (else it changed since it was looked at).
func (st *Store) readNow(root, rel, hash string) ([]byte, error) {
	rootDir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer rootDir.Close()
	dir, err := nofollow.OpenDir(int(rootDir.Fd()), path.Dir(rel))
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	data, err := nofollow.ReadFile(dir, path.Base(rel), st.maxFileSize()+1)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hash {
		return nil, fmt.Errorf("%s changed while it was read; look again", rel)
	}
	return data, nil
}

// removeEmptied removes the folders a rewind left empty that held none of
// the restored state's files: the agent made them for what it created.
// Deepest first; a folder that is not empty stays (the kernel refuses).
func removeEmptied(root int, restored []Change, target map[string]Entry) {
	held := map[string]bool{}
	for p := range target {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			held[d] = true
		}
	}
	var dirs []string
	for _, c := range restored {
		if c.Kind != '-' {
			continue
		}
		for d := path.Dir(c.Path); d != "." && !held[d] && !slices.Contains(dirs, d); d = path.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range dirs {
		if parent, name, err := nofollow.Parent(root, d, false); err == nil {
			_ = unix.Unlinkat(parent, name, unix.AT_REMOVEDIR)
			unix.Close(parent)
		}
	}
}

// put writes an entry's content at p (a symlink as a link), with its
// mode, through folders opened without following links.
func (st *Store) put(root int, p string, e Entry) error {
	data, err := st.readObject(e.Hash)
	if err != nil {
		return err
	}
	dir, name, err := nofollow.Parent(root, p, true)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if e.Mode&fs.ModeSymlink != 0 {
		return nofollow.Symlink(dir, name, string(data))
	}
	return nofollow.WriteFile(dir, name, data, e.Mode.Perm())
}

// remove deletes p (a file, or an emptied folder).
func remove(root int, p string) error {
	dir, name, err := nofollow.Parent(root, p, false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	return nofollow.Remove(dir, name)
}
