package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/chatrepl/chat/internal/regular"
)

// maxFiles bounds a checkpoint: a working directory bigger than this (a
// home folder, say) is not checkpointed.
const maxFiles = 200_000

// ErrTooBig is a working directory with more files than a checkpoint takes.
var ErrTooBig = fmt.Errorf("the working directory has more than %d files: no checkpoints here", maxFiles)

// scan reads root's state. A file whose metadata matches prev is not
// read; new content is stored as objects (written counts the bytes).
func (st *Store) scan(root string, prev map[string]Entry) (state map[string]Entry, written int64, err error) {
	state = make(map[string]Entry, len(prev))
	var patterns []gitignore.Pattern
	patterns = append(patterns, ignoreFile(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable: left out
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			patterns = append(patterns, ignoreFile(filepath.Join(p, ".gitignore"), nil)...)
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if d.Name() == ".git" || gitignore.NewMatcher(patterns).Match(parts, true) {
				return filepath.SkipDir
			}
			patterns = append(patterns, ignoreFile(filepath.Join(p, ".gitignore"), parts)...)
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // FIFOs, sockets, devices
		}
		if gitignore.NewMatcher(patterns).Match(parts, false) {
			return nil
		}
		if len(state) >= maxFiles {
			return ErrTooBig
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		key := filepath.ToSlash(rel)
		if old, ok := prev[key]; ok && old.unchanged(fi) {
			state[key] = old
			return nil
		}
		e, n, err := st.store(p, fi)
		if err != nil {
			return nil // it changed under us or cannot be read: left out
		}
		written += n
		state[key] = e
		return nil
	})
	return state, written, err
}

// store makes an entry for the file at p, storing its content.
func (st *Store) store(p string, fi os.FileInfo) (Entry, int64, error) {
	e := Entry{Mode: fi.Mode(), Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Ino: inode(fi)}
	var data []byte
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return e, 0, err
		}
		data = []byte(target)
	} else {
		if fi.Size() > st.maxFileSize() {
			e.TooBig = true
			return e, 0, nil
		}
		f, err := regular.Open(p) // never blocks on a FIFO swapped in
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
	n, err := st.putObject(e.Hash, data)
	return e, n, err
}

// putObject writes content under its hash unless it is there already.
func (st *Store) putObject(hash string, data []byte) (int64, error) {
	p := st.objectPath(hash)
	if _, err := os.Stat(p); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return 0, err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return int64(len(data)), nil
}

func (st *Store) objectPath(hash string) string {
	return filepath.Join(st.Dir, "objects", hash[:2], hash[2:])
}

// ignoreFile reads the patterns of one .gitignore (or info/exclude).
func ignoreFile(p string, domain []string) []gitignore.Pattern {
	f, err := regular.Open(p)
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func sortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
}
