package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sys/unix"

	"github.com/chatrepl/chat/internal/ignore"
	"github.com/chatrepl/chat/internal/nofollow"
)

// maxFiles bounds a checkpoint: a working directory bigger than this (a
// home folder, say) is not checkpointed.
const maxFiles = 200_000

// ErrTooBig is a working directory larger than a checkpoint takes: more
// than maxFiles files, or more new content in one checkpoint than the
// store may hold (a home folder, say). Checking stops as soon as it is
// known, so a first tool call there is not held for minutes.
var ErrTooBig = fmt.Errorf("the working directory is too large for checkpoints (more than %d files, or more content than max_size_mb)", maxFiles)

// scan reads root's state. A file whose metadata matches prev is not
// read; new content is stored as objects (written counts the bytes).
// Folders are read in parallel: a checkpoint of an unchanged tree costs
// one stat per file, and stats are slow on some machines (4 µs here).
// With peek, new content is hashed, not stored.
func (st *Store) scan(root string, prev map[string]Entry, peek bool) (map[string]Entry, int64, error) {
	rootDir, err := os.Open(root)
	if err != nil {
		return nil, 0, err
	}
	defer rootDir.Close()
	w := &walk{st: st, root: int(rootDir.Fd()), prev: prev, peek: peek, state: make(map[string]Entry, len(prev)), sem: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
	var patterns []gitignore.Pattern
	if git, err := nofollow.OpenDir(w.root, ".git/info"); err == nil {
		patterns = ignoreFileAt(git, "exclude", nil)
		unix.Close(git)
	}
	w.wg.Add(1)
	go w.dir("", nil, patterns)
	w.wg.Wait()
	if w.tooMany.Load() {
		return nil, 0, ErrTooBig
	}
	return w.state, w.written.Load(), nil
}

// walk is one scan in progress.
type walk struct {
	st      *Store
	root    int  // the working directory, open (every path is opened from it, no link followed)
	peek    bool // hash new content, store nothing
	prev    map[string]Entry
	sem     chan struct{} // bounds the folders read at once
	wg      sync.WaitGroup
	mu      sync.Mutex
	state   map[string]Entry
	written atomic.Int64
	tooMany atomic.Bool
}

// dir reads one folder (rel from the root, "" for the root itself), its
// subfolders in goroutines of their own. patterns are its parent's; its
// own .gitignore is added here.
func (w *walk) dir(rel string, parts []string, patterns []gitignore.Pattern) {
	defer w.wg.Done()
	w.sem <- struct{}{}
	defer func() { <-w.sem }()
	fd, err := nofollow.OpenDir(w.root, rel)
	if err != nil {
		return // unreadable, or swapped for a link: left out
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return
	}
	patterns = append(patterns[:len(patterns):len(patterns)], ignoreFileAt(fd, ".gitignore", parts)...)
	matcher := gitignore.NewMatcher(patterns)
	local := make(map[string]Entry, len(entries))
	for _, d := range entries {
		if w.tooMany.Load() {
			return
		}
		name := d.Name()
		childParts := append(parts[:len(parts):len(parts)], name)
		childRel := path.Join(rel, name)
		if d.IsDir() {
			if name == ".git" || matcher.Match(childParts, true) {
				continue
			}
			w.wg.Add(1)
			go w.dir(childRel, childParts, patterns)
			continue
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			continue // FIFOs, sockets, devices
		}
		if matcher.Match(childParts, false) {
			continue
		}
		var sys unix.Stat_t
		if err := unix.Fstatat(fd, name, &sys, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue
		}
		meta := Entry{Mode: fileMode(uint32(sys.Mode)), // a uint16 on macOS and the BSDs
			Size: sys.Size, MTime: sys.Mtim.Nano(), Ino: sys.Ino}
		if old, ok := w.prev[childRel]; ok && old.Size == meta.Size && old.MTime == meta.MTime && old.Mode == meta.Mode && old.Ino == meta.Ino {
			local[childRel] = old
			continue
		}
		e, n, err := w.st.store(fd, name, meta, w.peek)
		if err != nil {
			continue // it changed under us or cannot be read: left out
		}
		if w.written.Add(n) > w.st.maxTotal() {
			w.tooMany.Store(true)
			return
		}
		local[childRel] = e
	}
	w.mu.Lock()
	for k, v := range local {
		w.state[k] = v
	}
	if len(w.state) > maxFiles {
		w.tooMany.Store(true)
	}
	w.mu.Unlock()
}

// fileMode is a stat mode as Go's fs.FileMode (the kinds a scan keeps).
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&unix.S_IFMT == unix.S_IFLNK {
		mode |= fs.ModeSymlink
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// store completes an entry (its metadata read) for the file name in
// the open folder dir, storing its content.
func (st *Store) store(dir int, name string, e Entry, peek bool) (Entry, int64, error) {
	var data []byte
	if e.Mode&fs.ModeSymlink != 0 {
		target, err := nofollow.Readlink(dir, name)
		if err != nil {
			return e, 0, err
		}
		data = []byte(target)
	} else {
		if e.Size > st.maxFileSize() {
			e.TooBig = true
			return e, 0, nil
		}
		f, err := nofollow.OpenFile(dir, name) // never a link or a FIFO swapped in
		if err != nil {
			return e, 0, err
		}
		data, err = io.ReadAll(io.LimitReader(f, st.maxFileSize()+1))
		f.Close()
		if err != nil {
			return e, 0, err
		}
		if int64(len(data)) > st.maxFileSize() {
			e.TooBig = true
			return e, 0, nil
		}
	}
	sum := sha256.Sum256(data)
	e.Hash = hex.EncodeToString(sum[:])
	if peek {
		return e, 0, nil
	}
	n, err := st.putObject(e.Hash, data)
	return e, n, err
}

// putObject writes content under its hash unless it is there already.
// One create per object, under its final name (a temporary file and a
// rename cost twice the file creations, the slowest part of a first
// checkpoint); a write cut short by a crash is caught when the object is
// read back (readObject checks the hash).
func (st *Store) putObject(hash string, data []byte) (int64, error) {
	if st.pk.has(hash) {
		return 0, nil
	}
	if len(data) <= packMax {
		return st.pk.add(st.Dir, hash, data)
	}
	p := st.objectPath(hash)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return 0, err
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if errors.Is(err, fs.ErrExist) {
		return 0, nil // identical content, stored once
	}
	if err != nil {
		return 0, err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(p)
		return 0, err
	}
	return int64(len(data)), nil
}

// errDamaged is stored content that is missing or does not match its hash.
var errDamaged = errors.New("its stored content is damaged or missing")

// readObject reads stored content back, refusing content that does not
// match its hash (a write a crash cut short).
func (st *Store) readObject(hash string) ([]byte, error) {
	data, packed, err := st.pk.read(st.Dir, hash)
	if !packed {
		data, err = os.ReadFile(st.objectPath(hash))
	}
	if err != nil {
		return nil, errDamaged
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hash {
		return nil, errDamaged
	}
	return data, nil
}

func (st *Store) objectPath(hash string) string {
	return filepath.Join(st.Dir, "objects", hash[:2], hash[2:])
}

// ignoreFileAt reads the patterns of one .gitignore (or info/exclude)
// in the open folder dir.
func ignoreFileAt(dir int, name string, domain []string) []gitignore.Pattern {
	f, err := nofollow.OpenFile(dir, name)
	if err != nil {
		return nil
	}
	defer f.Close()
	return ignore.Patterns(f, domain)
}

func sortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
}
