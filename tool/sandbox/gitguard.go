package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/chatrepl/chat/internal/nofollow"
)

// GitGuard keeps what makes git run a program out of the repositories
// under a working directory while boxed commands run: a command may make
// a repository (git init, cargo new), but none may leave one that runs
// what it wrote when the person next types git status outside the box.
//
// Git is the judge, not a parser of ours: every repository git could
// find there (a .git folder, a .git file and where its gitdir: leads, a
// commondir, a bare repository) is read with git config --list
// --show-origin --includes, which sees what git sees (config.worktree,
// includes, a BOM, every quirk of its parser), and each key is held
// against an allow list of keys that cannot run a program (gitSafeKeys).
// A key outside it that was not there before is taken out of the file it
// came from, by git on a private copy; a repository that cannot be read
// safely (git refuses it, or what it reads lies outside the working
// directory or through a link) is put aside, renamed, so that git no
// longer finds it. Hooks that appeared or changed are undone too.
//
// It reads and writes through folders opened without following links:
// it runs outside the box, and a command may swap a folder for a link at
// any moment.
type GitGuard struct {
	workdir  string
	resolved string // workdir with its links resolved: git may name it so
	git      string // git's path; "" when there is none

	mu    sync.Mutex
	base  map[string]repoView // the accepted state, by entry
	last  map[string]repoView // what was last read: the files to watch
	print string              // the fingerprint of what was last read
	dirs  map[string]dirMemo  // the folders of the workspace, as last read
}

// repoView is what of one repository can make git run a program.
type repoView struct {
	gitdir, common string
	risky          []string          // origin \x00 key \x00 value, keys off the allow list
	hooks          map[string]string // name → digest (a link: "link:" + target)
	broken         string            // why git cannot read it safely ("": it can)
	origins        []string          // the config files git read, absolute
}

// NewGitGuard guards the repositories under workdir; Accept records
// their state as the person's.
func NewGitGuard(workdir string) *GitGuard {
	g := &GitGuard{workdir: workdir, resolved: workdir, dirs: map[string]dirMemo{}}
	if r, err := filepath.EvalSymlinks(workdir); err == nil {
		g.resolved = r
	}
	g.git, _ = exec.LookPath("git")
	return g
}

// openRoot opens the working directory: everything the guard reads or
// writes there goes through it, one folder at a time, never a link.
func (g *GitGuard) openRoot() (int, func(), error) {
	f, err := os.Open(g.workdir)
	if err != nil {
		return -1, nil, err
	}
	return int(f.Fd()), func() { f.Close() }, nil
}

// Accept takes the repositories as they are now as the person's (what
// is there when no boxed command runs is theirs).
func (g *GitGuard) Accept() {
	g.mu.Lock()
	defer g.mu.Unlock()
	root, done, err := g.openRoot()
	if err != nil {
		return
	}
	defer done()
	if g.base != nil && g.fingerprint(root) == g.print {
		return
	}
	g.settle(root)
	g.base = g.last
}

// settle reads every repository again and fingerprints what was read: a
// change made while git read shows as a fingerprint that moved, and is
// read again (or, after a few tries, at the next check).
func (g *GitGuard) settle(root int) {
	g.print = ""
	for range 3 {
		before := g.fingerprint(root)
		g.last = g.readAll(root)
		if after := g.fingerprint(root); after == before {
			g.print = after
			return
		}
	}
}

// Check undoes what a boxed command added since Accept that makes git
// run a program, and says what it undid and why (nothing: nil). It is
// cheap when nothing changed: the folders and files git reads are
// compared by their metadata first, and git runs only when they differ.
func (g *GitGuard) Check() []string { return g.check(false) }

// CheckWhileRunning is Check while commands still run in the box: a new
// repository git cannot read yet may be one being made (git init writes
// its files one by one), so it is looked at again at the next check
// instead of being put aside now.
func (g *GitGuard) CheckWhileRunning() []string { return g.check(true) }

func (g *GitGuard) check(running bool) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	root, done, err := g.openRoot()
	if err != nil {
		return nil
	}
	defer done()
	if g.base != nil && g.fingerprint(root) == g.print {
		return nil
	}
	g.settle(root)
	if g.base == nil {
		g.base = g.last
		return nil
	}
	var undone []string
	for entry, now := range g.last {
		if _, known := g.base[entry]; running && !known && now.broken != "" {
			g.print = "" // not settled: the next check reads it again
			continue
		}
		undone = append(undone, g.undo(root, entry, now)...)
	}
	if len(undone) > 0 {
		g.settle(root) // what git reads after the undoing
	}
	return undone
}

// undo takes back what changed in one repository since the accepted
// state.
func (g *GitGuard) undo(root int, entry string, now repoView) []string {
	before, known := g.base[entry]
	moved := known && (before.gitdir != now.gitdir || before.common != now.common)
	switch {
	case now.broken != "" && (!known || before.broken == "" || moved):
		return g.putAside(root, entry, now.broken)
	case now.broken == "" && (!known || moved) && !g.inside(root, now.gitdir, now.common):
		return g.putAside(root, entry, "its git directory is outside the working directory or reached through a link")
	}
	var undone []string
	added := slices.DeleteFunc(slices.Clone(now.risky), func(r string) bool { return slices.Contains(before.risky, r) })
	for _, r := range added {
		origin, kv, _ := strings.Cut(r, "\x00")
		key, value, _ := strings.Cut(kv, "\x00")
		if err := g.unset(root, origin, key, value); err != nil {
			return append(undone, g.putAside(root, entry, fmt.Sprintf("%s could not be taken out of %s (%v)", key, g.rel(origin), err))...)
		}
		undone = append(undone, fmt.Sprintf("the setting %s in %s (it makes git run a program)", key, g.rel(origin)))
	}
	undone = append(undone, g.undoHooks(root, now.common, before.hooks, now.hooks)...)
	if len(added) > 0 {
		// What git reads now must be what was accepted; if a key comes
		// back by another route, the repository goes aside.
		again := g.read(root, entry)
		if left := slices.DeleteFunc(again.risky, func(r string) bool { return slices.Contains(before.risky, r) }); len(left) > 0 || again.broken != "" {
			return append(undone, g.putAside(root, entry, "git still reads a setting that runs a program")...)
		}
	}
	return undone
}

// fingerprint is the metadata of every path git reads in the guarded
// repositories: their entries, config files, commondir and hooks.
func (g *GitGuard) fingerprint(root int) string {
	var b strings.Builder
	for _, e := range findRepos(root, g.dirs) {
		b.WriteString(e + stamp(root, e) + "\n")
		v := g.last[e]
		for _, p := range append(v.origins, filepath.Join(v.gitdir, "config.worktree"), filepath.Join(v.gitdir, "commondir"), filepath.Join(v.common, "config"), filepath.Join(v.common, "hooks")) {
			if rel, ok := g.relInside(p); ok {
				b.WriteString(p + stamp(root, rel) + "\n")
			}
		}
		if rel, ok := g.relInside(filepath.Join(v.common, "hooks")); ok {
			if d, err := nofollow.OpenDir(root, rel); err == nil {
				f := os.NewFile(uintptr(d), rel)
				names, _ := f.Readdirnames(-1)
				f.Close()
				slices.Sort(names)
				for _, n := range names {
					b.WriteString(n + stamp(root, path.Join(rel, n)))
				}
			}
		}
	}
	return b.String()
}

// stamp is what changes when a path is written, replaced or made a link.
func stamp(root int, rel string) string {
	var st unix.Stat_t
	if unix.Fstatat(root, rel, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return " -"
	}
	return fmt.Sprintf(" %d %d %o %d.%d", st.Ino, st.Size, st.Mode, st.Ctim.Sec, st.Ctim.Nsec)
}

// readAll reads every repository under the working directory.
func (g *GitGuard) readAll(root int) map[string]repoView {
	out := map[string]repoView{}
	for _, e := range findRepos(root, g.dirs) {
		out[e] = g.read(root, e)
	}
	return out
}

// gitWait bounds one run of git on a repository.
const gitWait = 10 * time.Second

// gitRun runs git in dir on that repository's own config alone: no
// system or global config, no person's home, no lock taken, a repository
// of any owner, and never a look above dir.
func (g *GitGuard) gitRun(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.git, append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "XDG_CONFIG_HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0", "GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir), "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("%s", firstLine(msg))
		}
	}
	return out, err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// read asks git what it reads for the repository found at entry (a .git
// path, or a bare repository's folder).
func (g *GitGuard) read(root int, entry string) repoView {
	v := repoView{hooks: map[string]string{}}
	dir := filepath.Join(g.workdir, filepath.FromSlash(entry))
	if path.Base(entry) == ".git" {
		dir = filepath.Dir(dir)
	}
	if g.git == "" {
		v.broken = "git is not installed here, so chat cannot tell what it would run"
		return v
	}
	out, err := g.gitRun(dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		v.broken = fmt.Sprintf("git refuses it (%v)", err)
		return v
	}
	v.gitdir, v.common = lines[0], lines[1]
	top := v.gitdir // a bare repository: git works in it
	if len(lines) >= 3 {
		top = lines[2]
	}
	list, err := g.gitRun(dir, "config", "--list", "--show-origin", "--includes", "-z")
	if err != nil {
		v.broken = fmt.Sprintf("git refuses its config (%v)", err)
		return v
	}
	fields := strings.Split(string(list), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		origin, ok := strings.CutPrefix(fields[i], "file:")
		if !ok {
			continue // the command line's own -c
		}
		if !filepath.IsAbs(origin) {
			origin = filepath.Join(top, origin)
		}
		origin = filepath.Clean(origin)
		if !slices.Contains(v.origins, origin) {
			v.origins = append(v.origins, origin)
		}
		key, value, _ := strings.Cut(fields[i+1], "\n")
		if !gitKeySafe(key, value) {
			v.risky = append(v.risky, origin+"\x00"+key+"\x00"+value)
		}
	}
	v.hooks = g.readHooks(root, v.common)
	return v
}

// readHooks are the hooks that run (not *.sample) in a common git
// directory inside the working directory.
func (g *GitGuard) readHooks(root int, common string) map[string]string {
	hooks := map[string]string{}
	rel, ok := g.relInside(filepath.Join(common, "hooks"))
	if !ok {
		return hooks
	}
	d, err := nofollow.OpenDir(root, rel)
	if err != nil {
		return hooks
	}
	f := os.NewFile(uintptr(d), rel)
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".sample") || e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := nofollow.Readlink(d, name)
			hooks[name] = "link:" + target
		default:
			b, _ := nofollow.ReadFile(d, name, 1<<20)
			sum := sha256.Sum256(b)
			hooks[name] = hex.EncodeToString(sum[:])
		}
	}
	return hooks
}

// undoHooks removes the hooks that appeared or changed (what a hook held
// before is not kept: one that changed goes too, and is said).
func (g *GitGuard) undoHooks(root int, common string, before, now map[string]string) []string {
	var undone []string
	rel, ok := g.relInside(filepath.Join(common, "hooks"))
	if !ok {
		return nil
	}
	d, err := nofollow.OpenDir(root, rel)
	if err != nil {
		return nil
	}
	defer unix.Close(d)
	for name, digest := range now {
		if old, ok := before[name]; ok && old == digest {
			continue
		}
		if nofollow.Remove(d, name) == nil {
			undone = append(undone, "the hook "+path.Join(rel, name))
		}
	}
	return undone
}

// unset takes key = value out of origin, a config file inside the
// working directory reached without a link: git edits a private copy,
// which is written back without following links.
func (g *GitGuard) unset(root int, origin, key, value string) error {
	rel, ok := g.relInside(origin)
	if !ok {
		return fmt.Errorf("it is outside the working directory")
	}
	dir, name, err := nofollow.Parent(root, rel, false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("it is not a regular file")
	}
	content, err := nofollow.ReadFile(dir, name, 1<<20)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "chat-gitguard-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	copyPath := filepath.Join(tmp, "config")
	if err := os.WriteFile(copyPath, content, 0o600); err != nil {
		return err
	}
	args := []string{"config", "--file", copyPath, "--unset-all", key}
	if value != "" {
		// git 2.39 crashes on --fixed-value with an empty value: a key
		// without one goes whole.
		args = []string{"config", "--file", copyPath, "--fixed-value", "--unset-all", key, value}
	}
	if _, err := g.gitRun(tmp, args...); err != nil {
		return err
	}
	edited, err := os.ReadFile(copyPath)
	if err != nil {
		return err
	}
	return nofollow.WriteFile(dir, name, edited, os.FileMode(st.Mode&0o777))
}

// putAside renames what git finds (a .git entry, or a bare repository's
// HEAD) so that git no longer takes it for a repository.
func (g *GitGuard) putAside(root int, entry, why string) []string {
	target := entry
	if path.Base(entry) != ".git" {
		target = path.Join(entry, "HEAD")
	}
	dir, name, err := nofollow.Parent(root, target, false)
	if err != nil {
		return []string{fmt.Sprintf("nothing: %s could not be put aside (%v)", entry, err)}
	}
	defer unix.Close(dir)
	aside := name + ".chat-disabled"
	for i := 2; unix.Fstatat(dir, aside, new(unix.Stat_t), unix.AT_SYMLINK_NOFOLLOW) == nil; i++ {
		aside = fmt.Sprintf("%s.chat-disabled-%d", name, i)
	}
	if err := unix.Renameat(dir, name, dir, aside); err != nil {
		return []string{fmt.Sprintf("nothing: %s could not be put aside (%v)", entry, err)}
	}
	return []string{fmt.Sprintf("the repository %s, renamed to %s (%s)", entry, path.Join(path.Dir(target), aside), why)}
}

// inside says whether git's directories for a repository are inside the
// working directory and reached without a link.
func (g *GitGuard) inside(root int, paths ...string) bool {
	for _, p := range paths {
		rel, ok := g.relInside(p)
		if !ok {
			return false
		}
		d, err := nofollow.OpenDir(root, rel)
		if err != nil {
			return false
		}
		unix.Close(d)
	}
	return true
}

// relInside is p relative to the working directory, slash-separated,
// when it is inside it.
func (g *GitGuard) relInside(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	for _, base := range []string{g.workdir, g.resolved} {
		if rel, err := filepath.Rel(base, p); err == nil && within(base, p) {
			return filepath.ToSlash(rel), rel != "."
		}
	}
	return "", false
}

func (g *GitGuard) rel(p string) string {
	if rel, ok := g.relInside(p); ok {
		return rel
	}
	return p
}

// maxRepoScan bounds the folders findRepos reads.
const maxRepoScan = maxProtectedScan
