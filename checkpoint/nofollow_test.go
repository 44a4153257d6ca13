//go:build linux

package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRewindNeverWritesThroughALink: turn 1 makes x/pre-commit; turn 2
// swaps x for a link to .git/hooks (and ignores it); the rewind must not
// put pre-commit into .git/hooks, and says so. A path inside .git is
// never written either.
func TestRewindNeverWritesThroughALink(t *testing.T) {
	root, st := t.TempDir(), &Store{Dir: t.TempDir()}
	write(t, root, ".git/config", "[core]\n", 0o644)
	os.MkdirAll(filepath.Join(root, ".git/hooks"), 0o755)
	take(t, st, root, "t1", "before")
	write(t, root, "x/pre-commit", "#!/bin/sh\ntouch pwned\n", 0o755)
	take(t, st, root, "t1", "after")

	take(t, st, root, "t2", "before")
	os.RemoveAll(filepath.Join(root, "x"))
	if err := os.Symlink(".git/hooks", filepath.Join(root, "x")); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".gitignore", "x\n", 0o644)
	take(t, st, root, "t2", "after")

	// Rewinding turn 2 alone would put x/pre-commit back: through the link.
	res, err := st.Rewind(root, "t2", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git/hooks/pre-commit")); err == nil {
		t.Fatalf("the rewind wrote .git/hooks/pre-commit through the link x: %+v", res)
	}
	if !slices.Contains(res.Refused, "x/pre-commit") {
		t.Errorf("x/pre-commit is not listed as refused: %+v", res)
	}
}

// TestScanNeverFollowsASwappedFolder: a folder is swapped for a link to a
// secret folder again and again while checkpoints are taken; no
// checkpoint may hold the secret.
func TestScanNeverFollowsASwappedFolder(t *testing.T) {
	base := t.TempDir()
	root, secret := filepath.Join(base, "work"), filepath.Join(base, "ssh")
	write(t, secret, "id_rsa", "SECRET", 0o600)
	write(t, root, "d/ordinary.txt", "x", 0o644)
	link := filepath.Join(root, "l")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "d"), unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { stop.Store(true); <-done }()
	for i := 0; i < 300; i++ {
		st := &Store{Dir: t.TempDir()}
		take(t, st, root, "t", "before")
		for _, p := range []string{"d/id_rsa", "l/id_rsa"} {
			if _, ok := st.last[p]; ok {
				t.Fatalf("scan %d followed a link and stored %s", i, p)
			}
		}
	}
}

func take(t *testing.T, st *Store, root, turn, label string) {
	t.Helper()
	if _, _, err := st.Take(root, turn, label); err != nil {
		t.Fatal(err)
	}
}
