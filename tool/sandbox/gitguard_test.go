//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
)

// asEveryUser runs the test again as the ordinary user, when this is root.
func asEveryUser(t *testing.T) {
	t.Helper()
	for _, u := range asuser.Both(t) {
		if u.UID != os.Getuid() {
			t.Run("as "+u.Name, func(t *testing.T) { asuser.RunTest(t, u) })
		}
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
}

// TestGitGuardSeesANewRepositoryAtOnce: the walk keeps what it read of
// each folder, and a repository made just after a check (within the
// same tick of the kernel's clock, or in a folder still for long) is
// found by the next one.
func TestGitGuardSeesANewRepositoryAtOnce(t *testing.T) {
	asEveryUser(t)
	root := t.TempDir()
	for _, d := range []string{"old", "fresh"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g := NewGitGuard(root)
	g.Accept()
	plant := func(dir string) {
		gitInit(t, filepath.Join(root, dir))
		cfg := filepath.Join(root, dir, ".git", "config")
		b, _ := os.ReadFile(cfg)
		if err := os.WriteFile(cfg, append(b, "[core]\n\tfsmonitor = touch x\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("fresh") // right after the check
	if undone := g.Check(); len(undone) != 1 || !strings.Contains(undone[0], "core.fsmonitor") {
		t.Fatalf("a repository made right after a check: %q", undone)
	}
	time.Sleep(stillFor + 500*time.Millisecond)
	g.Check() // "old" is read as a folder still for long
	plant("old")
	if undone := g.Check(); len(undone) != 1 || !strings.Contains(undone[0], "old/.git/config") {
		t.Fatalf("a repository made in a folder still for long: %q", undone)
	}
}

// TestGitGuardKeepsThePersonsOwn: what the repositories held when the
// guard accepted them stays (the person's own pager, an lfs filter),
// and a plain setting a command adds stays too.
func TestGitGuardKeepsThePersonsOwn(t *testing.T) {
	asEveryUser(t)
	root := t.TempDir()
	gitInit(t, root)
	for _, kv := range [][2]string{{"core.pager", "less -R"}, {"filter.lfs.smudge", "git-lfs smudge -- %f"}} {
		if out, err := exec.Command("git", "-C", root, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			t.Fatal(err, string(out))
		}
	}
	g := NewGitGuard(root)
	g.Accept()
	for _, kv := range [][2]string{{"user.name", "bot"}, {"core.editor", "touch x"}} {
		if out, err := exec.Command("git", "-C", root, "config", kv[0], kv[1]).CombinedOutput(); err != nil {
			t.Fatal(err, string(out))
		}
	}
	undone := g.Check()
	if len(undone) != 1 || !strings.Contains(undone[0], "core.editor") {
		t.Fatalf("undone: %q", undone)
	}
	out, _ := exec.Command("git", "-C", root, "config", "--list").Output()
	for _, want := range []string{"core.pager=less -R", "filter.lfs.smudge=git-lfs smudge -- %f", "user.name=bot"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s was lost:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "core.editor") {
		t.Errorf("core.editor stayed:\n%s", out)
	}
}

// TestGitGuardWaitsForARepositoryBeingMade: a repository caught halfway
// through git init (its config not written yet: git refuses it) is not
// put aside while commands run; once it is whole, its plain settings
// stay. A repository that stays unreadable is put aside at the check
// after the commands end.
func TestGitGuardWaitsForARepositoryBeingMade(t *testing.T) {
	root := t.TempDir()
	g := NewGitGuard(root)
	g.Accept()
	half := filepath.Join(root, "rk", ".git")
	if err := os.MkdirAll(filepath.Join(half, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(half, "config"), []byte("[core\n"), 0o644); err != nil { // half written
		t.Fatal(err)
	}
	if undone := g.CheckWhileRunning(); len(undone) > 0 {
		t.Fatalf("a repository being made was undone: %q", undone)
	}
	gitInit(t, filepath.Join(root, "rk"))
	if out, err := exec.Command("git", "-C", filepath.Join(root, "rk"), "config", "user.name", "bot").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if undone := g.Check(); len(undone) > 0 {
		t.Fatalf("a whole repository with plain settings was undone: %q", undone)
	}
	if _, err := os.Stat(half); err != nil {
		t.Fatalf("the repository was put aside: %v", err)
	}
	broken := filepath.Join(root, "rb", ".git")
	_ = os.MkdirAll(broken, 0o755)
	_ = os.WriteFile(filepath.Join(broken, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	_ = os.WriteFile(filepath.Join(broken, "config"), []byte("[core\n"), 0o644)
	g.CheckWhileRunning()
	if undone := g.Check(); len(undone) != 1 {
		t.Fatalf("an unreadable repository after the commands ended: %q", undone)
	}
}
