package nofollow

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var noOpenat2 atomic.Bool

// openat2Beneath opens the folder rel under root in one call where the
// kernel has openat2 (5.6): no link, nothing outside root.
func openat2Beneath(root int, rel string) (int, error) {
	if noOpenat2.Load() {
		return -1, errors.ErrUnsupported
	}
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) { // old kernel, or a seccomp filter refusing it
		noOpenat2.Store(true)
		return -1, errors.ErrUnsupported
	}
	return fd, err
}
