package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is a repository with one commit of a.txt, and who commits in it.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := filepath.Join(t.TempDir(), "proj")
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x",
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
	run(t, "", "git", "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "a.txt"), "one\n")
	run(t, dir, "git", "add", "a.txt")
	run(t, dir, "git", "commit", "-qm", "first")
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTheLifeOfAWorktree: made beside the repository on chat/NAME, found
// again, its work seen, merged in, removed; a conflict names its file; a
// tree with uncommitted work is kept unless forced.
func TestTheLifeOfAWorktree(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	r, err := Find(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, created, err := r.Add(ctx, "fix")
	if err != nil || !created || tr.Dir != dir+".worktrees/fix" || tr.Branch != "chat/fix" {
		t.Fatalf("add: %+v %v %v", tr, created, err)
	}
	if again, created, err := r.Add(ctx, "fix"); err != nil || created || again.Dir != tr.Dir {
		t.Fatalf("add again: %+v %v %v", again, created, err)
	}
	// From inside the worktree, the repository is the same one.
	if r2, err := Find(ctx, tr.Dir, ""); err != nil || r2.Root != dir {
		t.Fatalf("from the tree: %+v %v", r2, err)
	}
	write(t, filepath.Join(tr.Dir, "a.txt"), "one\ntwo\n")
	write(t, filepath.Join(tr.Dir, "new.txt"), "new\n")
	s, err := r.Status(ctx, tr)
	if err != nil || strings.Join(s.Changed, " ") != "a.txt new.txt" {
		t.Fatalf("status: %+v %v", s, err)
	}
	diff, err := r.Diff(ctx, tr, false)
	if err != nil || !strings.Contains(diff, "+two") || !strings.Contains(diff, "+new") {
		t.Fatalf("diff: %v\n%s", err, diff)
	}
	if _, err := r.Remove(ctx, tr, false); !errors.As(err, new(*DirtyError)) {
		t.Fatalf("remove with uncommitted work: %v", err)
	}
	if err := r.Merge(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("merged a.txt: %q", b)
	}
	if kept, err := r.Remove(ctx, tr, false); err != nil || kept {
		t.Fatalf("remove merged: kept %v, %v", kept, err)
	}
	if _, err := os.Stat(tr.Dir); !os.IsNotExist(err) {
		t.Fatal("the folder is still there")
	}
	// A conflict: both change a.txt's last line.
	c, _, err := r.Add(ctx, "clash")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(c.Dir, "a.txt"), "one\nTHREE\n")
	write(t, filepath.Join(dir, "a.txt"), "one\nFOUR\n")
	run(t, dir, "git", "commit", "-qam", "main's")
	var conflict *ConflictError
	if err := r.Merge(ctx, c); !errors.As(err, &conflict) || strings.Join(conflict.Files, ",") != "a.txt" {
		t.Fatalf("merge: %v", err)
	}
	run(t, dir, "git", "merge", "--abort")
	if kept, err := r.Remove(ctx, c, true); err != nil || !kept {
		t.Fatalf("forced remove of unmerged work: kept %v, %v", kept, err)
	}
	if _, err := Find(ctx, t.TempDir(), ""); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("outside a repository: %v", err)
	}
	if err := CheckName("../x"); err == nil {
		t.Fatal("a name that climbs")
	}
}

// TestARewrittenDotGitIsNotFollowed: a tree's .git file rewritten to lead
// to a gitdir of the model's making (with a config that runs a program)
// is not what chat's git reads.
func TestARewrittenDotGitIsNotFollowed(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	r, _ := Find(ctx, dir, "")
	tr, _, err := r.Add(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(tr.Dir, "evil")
	run(t, "", "git", "init", "-q", evil)
	marker := filepath.Join(t.TempDir(), "ran")
	write(t, filepath.Join(evil, ".git", "config"), "[core]\n\tfsmonitor = \"touch "+marker+"\"\n")
	write(t, filepath.Join(tr.Dir, ".git"), "gitdir: "+filepath.Join(evil, ".git")+"\n")
	if _, err := r.Status(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Diff(ctx, tr, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran the planted fsmonitor")
	}
}
