package tool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/chatrepl/chat/internal/ignore"
	"github.com/chatrepl/chat/internal/regular"
)

// Workspace is the directory the tools work in. A path outside it (after
// resolving symlinks) is not refused, but needs the person's approval,
// even for a tool that only reads.
type Workspace struct {
	Root      string
	MaxOutput int // bytes a tool may return before truncation (default 64 KiB)
	// Shell is where run_shell's commands run; nil runs them directly
	// with this process's environment (tests).
	Shell *Confinement
	// Jobs are the run's background commands (nil: none can start).
	Jobs *Jobs
}

func (w Workspace) maxOutput() int {
	if w.MaxOutput > 0 {
		return w.MaxOutput
	}
	return 64 << 10
}

func (w Workspace) root() string {
	root, err := filepath.Abs(w.Root)
	if err != nil {
		return w.Root
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		return real
	}
	return root
}

// fileTarget is the path a call acts on, resolved once when the call is
// reviewed. Every access goes through an os.Root on dir, checked to be
// the directory that was reviewed, so a symlink swapped in between
// (anywhere on the path) cannot lead the call somewhere else.
type fileTarget struct {
	abs     string // the real path, shown to the person
	outside bool
	dir     string      // the confining directory: the workspace, or (outside) the target's own
	name    string      // the target within dir ("." for dir itself)
	dirID   os.FileInfo // dir as it was at review
	// path are the folders between dir and the target as they were at
	// review (nil for one that did not exist yet): a folder swapped for a
	// link while the prompt waited cannot lead the write elsewhere.
	path []os.FileInfo
}

// ErrChanged is a target whose directory was replaced between review and run.
var ErrChanged = errors.New("the path changed between approval and running; the call was refused, look again")

// target resolves a path the model gave. Outside the workspace, the
// confining directory is the target itself when it is a directory, else
// its parent. It reads nothing.
func (w Workspace) target(p string) (*fileTarget, error) {
	root := w.root()
	if p == "" {
		p = "."
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	abs = realPath(filepath.Clean(abs))
	t := &fileTarget{abs: abs, dir: root}
	rel, in := under(root, abs)
	if !in {
		t.outside = true
		t.dir, t.name = filepath.Dir(abs), filepath.Base(abs)
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			t.dir, t.name = abs, "."
		}
	} else {
		t.name = rel
	}
	// Outside, a missing directory is found out when the call runs, after
	// approval: a review must not tell the model what exists there.
	st, err := os.Stat(t.dir)
	if err != nil && !t.outside {
		return nil, fmt.Errorf("%s: the directory %s cannot be used: %v", p, t.dir, err)
	}
	t.dirID = st
	if st != nil {
		for _, c := range t.folders() {
			fi, _ := os.Lstat(filepath.Join(t.dir, c))
			t.path = append(t.path, fi)
		}
	}
	return t, nil
}

// folders are the paths from dir of the folders that hold the target.
func (t *fileTarget) folders() []string {
	var out []string
	parts := strings.Split(filepath.Dir(t.name), string(filepath.Separator))
	for i := range parts {
		if parts[i] != "." && parts[i] != "" {
			out = append(out, filepath.Join(parts[:i+1]...))
		}
	}
	return out
}

// parent opens the folder that holds the target, one folder at a time,
// each checked to be the one reviewed (or, if it did not exist then,
// made now), and returns it with the target's name in it.
func (t *fileTarget) parent(create bool) (*os.Root, string, error) {
	cur, err := t.root()
	if err != nil {
		return nil, "", err
	}
	for i, c := range t.folders() {
		name := filepath.Base(c)
		var want os.FileInfo
		if i < len(t.path) {
			want = t.path[i]
		}
		if want == nil {
			if !create {
				cur.Close()
				return nil, "", fs.ErrNotExist
			}
			if err := cur.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				cur.Close()
				return nil, "", err
			}
			if want, err = cur.Lstat(name); err != nil || !want.IsDir() {
				cur.Close()
				return nil, "", ErrChanged
			}
		}
		next, err := cur.OpenRoot(name)
		cur.Close()
		if err != nil {
			return nil, "", fmt.Errorf("%w (%v)", ErrChanged, err)
		}
		if st, err := next.Stat("."); err != nil || !os.SameFile(st, want) {
			next.Close()
			return nil, "", ErrChanged
		}
		cur = next
	}
	return cur, filepath.Base(t.name), nil
}

// realPath resolves symlinks in the existing part of p.
// under reports whether path is dir or below it, and its path from dir.
func under(dir, path string) (rel string, ok bool) {
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(realPath(dir), base)
}

// callTarget is the target the policy approved for this call, or (outside
// Dispatch) the path resolved now.
func (w Workspace) callTarget(ctx context.Context, p string) (*fileTarget, error) {
	if r, ok := Reviewed(ctx); ok && r.file != nil {
		return r.file, nil
	}
	return w.target(p)
}

// fileCall decodes a file tool's arguments and resolves the file it acts on.
func fileCall[A interface{ file() string }](ctx context.Context, w Workspace, raw json.RawMessage) (A, *fileTarget, error) {
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, nil, err
	}
	t, err := w.callTarget(ctx, a.file())
	return a, t, err
}

// rootOf opens the confining directory of the call's approved target (or,
// outside Dispatch, of p resolved now); the caller closes the root.
func (w Workspace) rootOf(ctx context.Context, p string) (*fileTarget, *os.Root, error) {
	t, err := w.callTarget(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	root, err := t.root()
	if err != nil {
		return nil, nil, err
	}
	return t, root, nil
}

// root opens the confining directory, refusing one that is not the
// directory reviewed.
func (t *fileTarget) root() (*os.Root, error) {
	if t.dirID == nil {
		return nil, fmt.Errorf("the directory %s does not exist", t.dir)
	}
	r, err := os.OpenRoot(t.dir)
	if err != nil {
		return nil, err
	}
	st, err := r.Stat(".")
	if err != nil || !os.SameFile(st, t.dirID) {
		r.Close()
		return nil, ErrChanged
	}
	return r, nil
}

// open opens the target for reading. It never blocks on a FIFO and
// refuses anything but a regular file before reading a byte.
func (t *fileTarget) open() (*os.File, error) {
	if t.name == "." {
		return nil, &regular.NotRegularError{Name: t.abs, Mode: fs.ModeDir}
	}
	root, name, err := t.parent(false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return regular.OpenIn(root, name)
}

// readAll reads the whole target, refusing one larger than limit.
func (t *fileTarget) readAll(limit int64) ([]byte, error) {
	f, err := t.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MiB; edit it another way", t.abs, limit>>20)
	}
	return b, nil
}

// write replaces the target with data: a temp file in the same directory
// renamed over it, keeping the old file's mode. It creates missing
// directories inside the workspace.
func (t *fileTarget) write(data []byte) error {
	if t.name == "." {
		return &regular.NotRegularError{Name: t.abs, Mode: fs.ModeDir}
	}
	root, name, err := t.parent(true)
	if err != nil {
		return err
	}
	defer root.Close()
	mode := os.FileMode(0o644)
	if st, err := root.Lstat(name); err == nil {
		if !st.Mode().IsRegular() {
			return &regular.NotRegularError{Name: t.name, Mode: st.Mode()}
		}
		mode = st.Mode().Perm()
	}
	var tmp string
	var f *os.File
	for i := 0; ; i++ {
		tmp = fmt.Sprintf(".chat-write-%d-%d", os.Getpid(), i)
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err == nil || !errors.Is(err, fs.ErrExist) || i > 100 {
			break
		}
	}
	if err != nil {
		return err
	}
	defer root.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}

// readReview is the review of a read-only call: free inside the
// workspace; outside, it asks, and "always" covers the directory.
func (w Workspace) readReview(verb string, raw json.RawMessage) (Review, error) {
	var a pathArg
	_ = json.Unmarshal(raw, &a)
	t, err := w.target(a.Path)
	if err != nil {
		return Review{}, err
	}
	r := Review{Target: t.abs, file: t}
	if t.outside {
		r.NeedsApproval = true
		r.Summary = fmt.Sprintf("%s %s (outside the working directory %s)", verb, t.abs, w.root())
		r.Grants = []Grant{{Kind: GrantRead, Value: t.dir}}
	}
	return r, nil
}

// Truncate cuts s to max bytes on a line boundary and says how much it cut.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n') + 1
	if cut == 0 {
		cut = max
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown; ask for a smaller range]", cut, len(s))
}

// skipDirs are never worth showing a model, ignored or not.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true, "__pycache__": true}

// walkFiles walks dir inside root, skipping what .gitignore files (from
// the root down) exclude. Paths given to fn are relative to the root;
// nothing outside it is ever visited.
func walkFiles(root *os.Root, dir string, fn func(p string, d fs.DirEntry) error) error {
	var patterns []gitignore.Pattern
	parts := splitPath(dir)
	// .gitignore files above dir, from the root down, apply too.
	for i := 0; i <= len(parts); i++ {
		patterns = append(patterns, readIgnore(root, parts[:i])...)
	}
	matcher := gitignore.NewMatcher(patterns)
	return fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		parts := splitPath(p)
		if p != dir {
			if d.IsDir() && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			if matcher.Match(parts, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if more := readIgnore(root, parts); len(more) > 0 {
					patterns = append(patterns, more...)
					matcher = gitignore.NewMatcher(patterns)
				}
			}
		}
		return fn(p, d)
	})
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// readIgnore reads the .gitignore of a directory (and, at the root,
// .git/info/exclude), bounded.
func readIgnore(root *os.Root, domain []string) []gitignore.Pattern {
	dir := path.Join(append([]string{"."}, domain...)...)
	var ps []gitignore.Pattern
	files := []string{path.Join(dir, ".gitignore")}
	if len(domain) == 0 {
		files = append(files, ".git/info/exclude")
	}
	for _, name := range files {
		f, err := regular.OpenIn(root, name)
		if err != nil {
			continue
		}
		ps = append(ps, ignore.Patterns(f, domain)...)
		f.Close()
	}
	return ps
}

// readLine reads one line of any length, keeping at most max bytes of it
// (cut counts the rest); the newline is dropped. io.EOF only when there
// is no line left.
func readLine(br *bufio.Reader, max int, buf []byte) (line []byte, cut int, err error) {
	line = buf[:0]
	read := false
	for {
		chunk, err := br.ReadSlice('\n')
		read = read || len(chunk) > 0
		done := err == nil || err != bufio.ErrBufferFull
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		if room := max - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
			cut += len(chunk) - min(room, len(chunk))
		} else {
			cut += len(chunk)
		}
		if done {
			if err == nil && cut == 0 && len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if err == io.EOF && !read {
				return nil, 0, io.EOF
			}
			if err == io.EOF {
				err = nil
			}
			return line, cut, err
		}
	}
}

// errEnough stops ProjectFiles' walk once it has max paths.
var errEnough = errors.New("enough")

// ProjectFiles lists the files and folders under dir (relative, with "/"
// after a folder), as the file tools see them: .gitignore honoured, .git
// and the like skipped; at most max of them, at most depth levels down
// (0: all).
func ProjectFiles(dir string, max, depth int) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var out []string
	err = walkFiles(root, ".", func(p string, d fs.DirEntry) error {
		if p == "." {
			return nil
		}
		if len(out) >= max {
			return errEnough
		}
		if d.IsDir() {
			out = append(out, p+"/")
			if depth > 0 && strings.Count(p, "/")+1 >= depth {
				return fs.SkipDir
			}
			return nil
		}
		out = append(out, p)
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return out, err
}
