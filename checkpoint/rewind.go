package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Turn is what one turn did to the files: the state before its first
// change and after its last.
type Turn struct {
	ID            string
	Before, After int // checkpoint seqs; After is 0 when the turn never finished
	Changes       []Change
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
	}
	for i := range turns {
		before, err := st.stateLocked(turns[i].Before)
		if err != nil {
			return nil, err
		}
		after, err := st.afterLocked(turns, i, current)
		if err != nil {
			return nil, err
		}
		turns[i].Changes = Diff(before, after)
	}
	return turns, nil
}

// afterLocked is the state turn i left the files in.
func (st *Store) afterLocked(turns []Turn, i int, current map[string]Entry) (map[string]Entry, error) {
	switch {
	case turns[i].After > 0:
		return st.stateLocked(turns[i].After)
	case i+1 < len(turns):
		return st.stateLocked(turns[i+1].Before)
	case current != nil:
		return current, nil
	}
	return st.last, nil
}

// Result is what a rewind did.
type Result struct {
	Restored []Change // what was put back: '+' recreated, '~' restored, '-' removed
	// Conflicts are paths the person changed after the agent did: left
	// alone unless forced.
	Conflicts []string
	// Unrestorable are paths the agent changed whose earlier content was
	// not stored (over the size limit).
	Unrestorable []string
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
	turns, err := st.turnsLocked(current)
	if err != nil {
		return res, err
	}
	from := slices.IndexFunc(turns, func(t Turn) bool { return t.ID == turn })
	if from < 0 {
		return res, fmt.Errorf("no checkpoint of that turn (it changed no files, or its checkpoints were pruned)")
	}
	target, err := st.stateLocked(turns[from].Before)
	if err != nil {
		return res, err
	}
	// How the agent left each path it changed, the latest turn last.
	left := map[string]*Entry{}
	for i := from; i < len(turns); i++ {
		after, err := st.afterLocked(turns, i, current)
		if err != nil {
			return res, err
		}
		for _, c := range turns[i].Changes {
			if e, ok := after[c.Path]; ok {
				left[c.Path] = &e
			} else {
				left[c.Path] = nil
			}
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return res, err
	}
	defer r.Close()
	paths := make([]string, 0, len(left))
	for p := range left {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		cur, exists := current[p]
		want, had := target[p]
		agent := left[p]
		if exists == had && (!exists || cur.same(want)) {
			continue // already as it was
		}
		if !force && (exists != (agent != nil) || (exists && !cur.same(*agent))) {
			res.Conflicts = append(res.Conflicts, p)
			continue
		}
		if had && want.TooBig {
			res.Unrestorable = append(res.Unrestorable, p)
			continue
		}
		kind := byte('~')
		switch {
		case !had:
			kind = '-'
			err = r.Remove(filepath.FromSlash(p))
		default:
			if !exists {
				kind = '+'
			}
			err = st.put(r, p, want)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("restoring %s: %w", p, err)
		}
		res.Restored = append(res.Restored, Change{Path: p, Kind: kind})
	}
	return res, nil
}

// put writes an entry's content at p (a symlink as a link), with its mode.
func (st *Store) put(r *os.Root, p string, e Entry) error {
	data, err := os.ReadFile(st.objectPath(e.Hash))
	if err != nil {
		return fmt.Errorf("its stored content is missing: %w", err)
	}
	name := filepath.FromSlash(p)
	if dir := filepath.Dir(name); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := name + ".chat-rewind"
	if e.Mode&fs.ModeSymlink != 0 {
		_ = r.Remove(tmp)
		if err := r.Symlink(string(data), tmp); err != nil {
			return err
		}
		return r.Rename(tmp, name)
	}
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, e.Mode.Perm())
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		r.Remove(tmp)
		return err
	}
	if err := r.Chmod(tmp, e.Mode.Perm()); err != nil {
		r.Remove(tmp)
		return err
	}
	return r.Rename(tmp, name)
}
