// Package nofollow opens, reads and writes paths under a folder already
// open, one component at a time and never through a symbolic link: a
// command in the box may swap a folder for a link to ~/.ssh or to
// .git/hooks at any moment, and chat, which is not confined, must not
// read or write through it. It imports nothing from the project.
package nofollow

import (
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrLinked is a path with a symbolic link (or something that is not a
// folder) where a folder or a regular file should be.
var ErrLinked = errors.New("a symbolic link, or not a regular file, on the way")

// OpenDir opens the folder rel ("a/b", "" for root itself) under the open
// folder root. Root itself is opened anew, not duplicated: a duplicate
// shares its read position, and a second read of its entries through
// the same root would find none.
func OpenDir(root int, rel string) (int, error) {
	if rel == "" || rel == "." {
		return unix.Openat(root, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if fd, err := openat2Beneath(root, rel); !errors.Is(err, errors.ErrUnsupported) {
		return fd, linked(err)
	}
	return walk(root, rel, false)
}

// makeDirs opens the folder rel under root, making the missing ones.
func makeDirs(root int, rel string) (int, error) {
	if rel == "" || rel == "." {
		return unix.Dup(root)
	}
	return walk(root, rel, true)
}

func walk(root int, rel string, create bool) (int, error) {
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
		return -1, ErrLinked
	}
	return unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// linked names the errors a link on the way gives (ENOENT stays
// fs.ErrNotExist).
func linked(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) {
		return ErrLinked
	}
	return err
}

// OpenFile opens the regular file name in the open folder dir for
// reading: never a link, never blocking on a FIFO swapped in.
func OpenFile(dir int, name string) (*os.File, error) {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, linked(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, ErrLinked
	}
	return os.NewFile(uintptr(fd), name), nil
}

// ReadFile reads the regular file name in dir, at most max bytes.
func ReadFile(dir int, name string, max int64) ([]byte, error) {
	f, err := OpenFile(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// Readlink is the target of the link name in dir.
func Readlink(dir int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dir, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// WriteFile replaces name in dir with data (mode perm): written beside
// it, then renamed over it, so a link there is replaced, not followed.
func WriteFile(dir int, name string, data []byte, perm os.FileMode) error {
	tmp := name + ".chat-tmp"
	_ = unix.Unlinkat(dir, tmp, 0)
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	merr := f.Chmod(perm.Perm())
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = unix.Unlinkat(dir, tmp, 0)
		return err
	}
	return unix.Renameat(dir, tmp, dir, name)
}

// Symlink replaces name in dir with a link to target.
func Symlink(dir int, name, target string) error {
	tmp := name + ".chat-tmp"
	_ = unix.Unlinkat(dir, tmp, 0)
	if err := unix.Symlinkat(target, dir, tmp); err != nil {
		return err
	}
	return unix.Renameat(dir, tmp, dir, name)
}

// Remove deletes name in dir: a file, a link (not what it points to) or
// an empty folder.
func Remove(dir int, name string) error {
	err := unix.Unlinkat(dir, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		if rerr := unix.Unlinkat(dir, name, unix.AT_REMOVEDIR); rerr == nil || !errors.Is(err, unix.EPERM) {
			err = rerr
		}
	}
	return err
}

// Parent opens the folder of the slash-separated path p under root (made
// when create) and names p in it.
func Parent(root int, p string, create bool) (dir int, name string, err error) {
	parent, name := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		parent, name = p[:i], p[i+1:]
	}
	if create {
		dir, err = makeDirs(root, parent)
	} else {
		dir, err = OpenDir(root, parent)
	}
	return dir, name, err
}

// RemoveAll deletes name in dir and, if it is a folder, what it holds,
// never following a link.
func RemoveAll(dir int, name string) error {
	err := Remove(dir, name)
	if !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) {
		return err
	}
	sub, err := openDirAt(dir, name)
	if err != nil {
		return linked(err)
	}
	f := os.NewFile(uintptr(sub), name)
	entries, _ := f.ReadDir(-1)
	for _, e := range entries {
		_ = RemoveAll(sub, e.Name())
	}
	f.Close()
	return Remove(dir, name)
}
