package checkpoint

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// errLinked is a path with a symbolic link (or something that is not a
// folder) where a folder should be: a scan leaves it out, a rewind does
// not write through it.
var errLinked = errors.New("a folder on its way is a symbolic link")

// Everything below opens paths one component at a time from a folder
// already open, never following a symbolic link: a command in the box
// may swap a folder for a link to ~/.ssh or to .git/hooks at any moment,
// and chat, unconfined, must not read or write through it.

// openDirIn opens the folder rel under the open folder root ("" is root
// itself) without following any link on the way.
func openDirIn(root int, rel string) (int, error) {
	if rel == "" {
		return unix.Dup(root)
	}
	if fd, err := openat2Beneath(root, rel); !errors.Is(err, errors.ErrUnsupported) {
		return fd, linked(err)
	}
	return walkDirs(root, rel, false)
}

// walkDirs opens the folders of rel one by one from root, making the
// missing ones when create.
func walkDirs(root int, rel string, create bool) (int, error) {
	fd, err := unix.Dup(root)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(rel, "/") {
		next, err := openDirAt(fd, name)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDirAt(fd, name)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, linked(err)
		}
		fd = next
	}
	return fd, nil
}

func openDirAt(dir int, name string) (int, error) {
	if name == "" || name == "." || name == ".." {
		return -1, errLinked
	}
	return unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// linked names the errors a link on the way gives.
func linked(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) {
		return errLinked
	}
	return err
}

// openFileAt opens the regular file name in the open folder dir for
// reading: never a link, never blocking on a FIFO swapped in.
func openFileAt(dir int, name string) (*os.File, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, linked(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, errLinked
	}
	return os.NewFile(uintptr(fd), name), nil
}
