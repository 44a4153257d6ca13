//go:build unix

package worktree

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// locked runs f holding the repository's worktree lock: git's own
// commands read a worktree's record while another chat's git worktree add
// is still writing it ("failed to read …/commondir").
func (r Repo) locked(f func() error) error {
	lf, err := os.OpenFile(filepath.Join(r.Common, "chat-worktrees.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return f() // a repository we cannot write to: git will say what it can
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		return f()
	}
	defer unix.Flock(int(lf.Fd()), unix.LOCK_UN)
	return f()
}
