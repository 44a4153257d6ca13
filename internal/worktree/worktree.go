package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// BranchPrefix begins the branch of every worktree chat makes.
const BranchPrefix = "chat/"

// ErrNotRepository: the folder is in no git repository.
var ErrNotRepository = errors.New("not in a git repository: --worktree needs one (git init, or run chat in a repository)")

// Repo is a repository with its main working tree.
type Repo struct {
	Root   string // the main working tree's top folder
	Common string // the repository's own gitdir (.git of the main tree)
	Base   string // where chat's worktrees go, one folder per name
}

// Tree is one of chat's worktrees.
type Tree struct {
	Name   string
	Dir    string
	Branch string // chat/NAME
	gitdir string // Common/worktrees/<id>
}

// Find is the repository dir is in; base is where its worktrees go
// ("" beside it: <root>.worktrees; a relative one is under the root's
// parent).
func Find(ctx context.Context, dir, base string) (Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
	if err != nil {
		return Repo{}, ErrNotRepository
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return Repo{}, ErrNotRepository // a bare repository has no tree to share
	}
	common := lines[0]
	// The main tree is the common dir's folder: from a linked worktree,
	// --show-toplevel names the linked one.
	root := lines[1]
	if filepath.Base(common) == ".git" {
		root = filepath.Dir(common)
	}
	if base == "" {
		base = root + ".worktrees"
	} else if !filepath.IsAbs(base) {
		base = filepath.Join(filepath.Dir(root), base)
	}
	return Repo{Root: root, Common: common, Base: base}, nil
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckName refuses a name that is no good as a folder and a branch.
func CheckName(name string) error {
	if !validName.MatchString(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".") {
		return fmt.Errorf("worktree name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// Add makes the worktree name on a new branch chat/NAME from the main
// tree's HEAD, or finds it when it is there; created says which.
func (r Repo) Add(ctx context.Context, name string) (t Tree, created bool, err error) {
	if err := CheckName(name); err != nil {
		return Tree{}, false, err
	}
	err = r.locked(func() error {
		t, created, err = r.add(ctx, name)
		return err
	})
	return t, created, err
}

func (r Repo) add(ctx context.Context, name string) (Tree, bool, error) {
	if t, ok, err := r.get(ctx, name); err != nil || ok {
		return t, false, err
	}
	dir := filepath.Join(r.Base, name)
	if _, err := os.Lstat(dir); err == nil {
		return Tree{}, false, fmt.Errorf("%s exists and is not a worktree of %s: move it away or pick another name", dir, r.Root)
	}
	if err := os.MkdirAll(r.Base, 0o755); err != nil {
		return Tree{}, false, fmt.Errorf("the worktrees' folder: %w ([worktree] dir in the config names another)", err)
	}
	branch := BranchPrefix + name
	args := []string{"worktree", "add", "-b", branch, dir}
	if r.hasBranch(ctx, branch) {
		args = []string{"worktree", "add", dir, branch} // a branch left by chat worktree rm
	}
	if _, err := r.git(ctx, args...); err != nil {
		return Tree{}, false, err
	}
	t, ok, err := r.get(ctx, name)
	if err == nil && !ok {
		err = fmt.Errorf("git made %s but does not list it", dir)
	}
	return t, true, err
}

func (r Repo) hasBranch(ctx context.Context, branch string) bool {
	_, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// Get is the worktree called name, if there is one.
func (r Repo) Get(ctx context.Context, name string) (t Tree, ok bool, err error) {
	err = r.locked(func() error {
		t, ok, err = r.get(ctx, name)
		return err
	})
	return t, ok, err
}

func (r Repo) get(ctx context.Context, name string) (Tree, bool, error) {
	all, err := r.list(ctx)
	for _, t := range all {
		if t.Name == name {
			return t, true, nil
		}
	}
	return Tree{}, false, err
}

// List is chat's worktrees of the repository: those on a chat/ branch.
func (r Repo) List(ctx context.Context) (trees []Tree, err error) {
	err = r.locked(func() error {
		trees, err = r.list(ctx)
		return err
	})
	return trees, err
}

func (r Repo) list(ctx context.Context) ([]Tree, error) {
	out, err := r.git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var trees []Tree
	for _, rec := range strings.Split(out, "\n\n") {
		var dir, branch string
		for _, line := range strings.Split(rec, "\n") {
			if v, ok := strings.CutPrefix(line, "worktree "); ok {
				dir = v
			} else if v, ok := strings.CutPrefix(line, "branch refs/heads/"); ok {
				branch = v
			}
		}
		name, ok := strings.CutPrefix(branch, BranchPrefix)
		if !ok || dir == "" || CheckName(name) != nil {
			continue
		}
		t := Tree{Name: name, Dir: dir, Branch: branch}
		if t.gitdir, err = r.gitdirOf(dir); err != nil {
			continue
		}
		trees = append(trees, t)
	}
	return trees, nil
}

// gitdirOf is the repository's record of the linked tree at dir: read
// from the repository's side (its gitdir file names the tree), never from
// the tree's .git file, which the tree's commands may rewrite.
func (r Repo) gitdirOf(dir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(r.Common, "worktrees"))
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		gd := filepath.Join(r.Common, "worktrees", e.Name())
		b, err := os.ReadFile(filepath.Join(gd, "gitdir"))
		if err == nil && filepath.Dir(strings.TrimSpace(string(b))) == dir {
			return gd, nil
		}
	}
	return "", fmt.Errorf("no record of the worktree %s in %s", dir, r.Common)
}

// Status is what a worktree holds beyond the main tree's branch.
type Status struct {
	Changed       []string // uncommitted: modified, added, deleted, untracked
	Ahead, Behind int      // its branch against the main tree's HEAD
}

// Status reads t's uncommitted files and how far its branch is from the
// main tree's HEAD.
func (r Repo) Status(ctx context.Context, t Tree) (Status, error) {
	var s Status
	out, err := r.inTree(ctx, t, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return s, err
	}
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) > 3 {
			s.Changed = append(s.Changed, rec[3:])
		}
	}
	counts, err := r.git(ctx, "rev-list", "--left-right", "--count", "HEAD..."+t.Branch)
	if err == nil {
		if f := strings.Fields(counts); len(f) == 2 {
			s.Behind, _ = strconv.Atoi(f[0])
			s.Ahead, _ = strconv.Atoi(f[1])
		}
	}
	return s, nil
}

// Diff is t's work against the main tree's HEAD: its branch's commits
// since they parted, then what it holds uncommitted (new files too).
func (r Repo) Diff(ctx context.Context, t Tree, stat bool) (string, error) {
	mode := "--patch"
	if stat {
		mode = "--stat"
	}
	var b strings.Builder
	committed, err := r.git(ctx, "diff", mode, "HEAD..."+t.Branch)
	if err != nil {
		return "", err
	}
	b.WriteString(committed)
	// Untracked files join the diff as intents to add, in a throwaway
	// index: the tree's own index is left as it is.
	tmp, err := os.CreateTemp("", "chat-worktree-index-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := r.inTreeEnv(ctx, t, env, "read-tree", "HEAD"); err != nil {
		return "", err
	}
	// A folder git cannot add (a repository without a commit) leaves the
	// new files out, not the diff.
	_, _ = r.inTreeEnv(ctx, t, env, "add", "--all", "--intent-to-add")
	pending, err := r.inTreeEnv(ctx, t, env, "diff", mode, "HEAD")
	if err != nil {
		return "", err
	}
	if pending != "" && committed != "" {
		b.WriteString("\n# uncommitted in " + t.Dir + "\n")
	}
	b.WriteString(pending)
	return b.String(), nil
}

// Commit commits everything t holds to its branch (new files too), with
// message; committed is false when there was nothing.
func (r Repo) Commit(ctx context.Context, t Tree, message string) (committed bool, err error) {
	if _, err := r.inTree(ctx, t, "add", "--all"); err != nil {
		return false, err
	}
	if _, err := r.inTree(ctx, t, "diff", "--cached", "--quiet"); err == nil {
		return false, nil
	}
	_, err = r.inTree(ctx, t, "-c", "user.name=chat", "-c", "user.email=chat@localhost", "commit", "--quiet", "--no-verify", "-m", message)
	return err == nil, err
}

// ConflictError is a merge that stopped on conflicts; the merge is left
// for the person to finish or abort.
type ConflictError struct {
	Branch string
	Files  []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merging %s stopped on conflicts in %s: resolve them and git commit, or git merge --abort", e.Branch, strings.Join(e.Files, ", "))
}

// Merge merges t's branch into the branch of the main tree (a fast
// forward when it can), after committing what t holds uncommitted.
func (r Repo) Merge(ctx context.Context, t Tree) error {
	if _, err := r.Commit(ctx, t, "chat worktree "+t.Name+": the work left uncommitted"); err != nil {
		return fmt.Errorf("committing %s's work: %w", t.Name, err)
	}
	_, err := r.git(ctx, "merge", "--no-edit", t.Branch)
	if err == nil {
		return nil
	}
	out, _ := r.git(ctx, "diff", "--name-only", "--diff-filter=U")
	if files := strings.Fields(out); len(files) > 0 {
		return &ConflictError{Branch: t.Branch, Files: files}
	}
	return err
}

// DirtyError refuses to remove a tree with uncommitted work.
type DirtyError struct {
	Name  string
	Files []string
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("the worktree %s has uncommitted changes (%s): merge it, or remove it with --force", e.Name, strings.Join(e.Files, ", "))
}

// Remove removes t's folder; with force, its uncommitted work too. Its
// branch goes when it is merged; kept otherwise (kept says so).
func (r Repo) Remove(ctx context.Context, t Tree, force bool) (kept bool, err error) {
	if !force {
		s, err := r.Status(ctx, t)
		if err != nil {
			return false, err
		}
		if len(s.Changed) > 0 {
			return false, &DirtyError{Name: t.Name, Files: s.Changed}
		}
	}
	args := []string{"worktree", "remove", t.Dir}
	if force {
		args = []string{"worktree", "remove", "--force", t.Dir}
	}
	if _, err := r.git(ctx, args...); err != nil {
		return false, err
	}
	if _, err := r.git(ctx, "branch", "-d", t.Branch); err != nil {
		return true, nil // not merged: the branch keeps the work
	}
	return false, nil
}

// git runs git on the repository from its main tree.
func (r Repo) git(ctx context.Context, args ...string) (string, error) {
	return gitEnv(ctx, r.Root, nil, append([]string{"--git-dir=" + r.Common, "--work-tree=" + r.Root}, args...)...)
}

// inTree runs git on t with the repository's record of it as the gitdir.
func (r Repo) inTree(ctx context.Context, t Tree, args ...string) (string, error) {
	return r.inTreeEnv(ctx, t, nil, args...)
}

func (r Repo) inTreeEnv(ctx context.Context, t Tree, env []string, args ...string) (string, error) {
	return gitEnv(ctx, t.Dir, env, append([]string{"--git-dir=" + t.gitdir, "--work-tree=" + t.Dir}, args...)...)
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitEnv(ctx, dir, nil, args...)
}

// gitEnv runs git in dir; an error carries what git said.
func gitEnv(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return string(out), fmt.Errorf("git: %s", msg)
		}
		return string(out), fmt.Errorf("git: %w", err)
	}
	return string(out), nil
}
