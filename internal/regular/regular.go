// Package regular opens files that must be regular files, for the file
// tools and attachments: it never blocks on a FIFO and refuses a FIFO, a
// device or a socket before a byte is read (one would block, /dev/zero
// never ends). It imports nothing from the project.
package regular

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrDir is a directory where a file was wanted.
var ErrDir = errors.New("is a directory")

// NotRegularError is a FIFO, a device or a socket where a file was wanted.
type NotRegularError struct {
	Name string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s)", e.Name, Kind(e.Mode))
}

// Kind names a file mode for a person: "a named pipe", "a socket" …
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// Check refuses what is not a regular file; a symlink passes (what it
// points to is checked once opened).
func Check(name string, m fs.FileMode) error {
	switch {
	case m.IsRegular(), m&fs.ModeSymlink != 0:
		return nil
	case m.IsDir():
		return ErrDir
	}
	return &NotRegularError{Name: name, Mode: m}
}

// Open opens path for reading.
func Open(path string) (*os.File, error) { return open(path, os.Lstat, os.OpenFile) }

// OpenIn opens name inside root for reading.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return open(name, root.Lstat, root.OpenFile)
}

func open(name string, lstat func(string) (fs.FileInfo, error), openFile func(string, int, fs.FileMode) (*os.File, error)) (*os.File, error) {
	if st, err := lstat(name); err == nil {
		if err := Check(name, st.Mode()); err != nil {
			return nil, err
		}
	}
	f, err := openFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	// It may have been swapped since the lstat: the open file decides.
	st, err := f.Stat()
	if err == nil {
		err = Check(name, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
