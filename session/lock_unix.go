//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrBusy is a session another process is writing.
var ErrBusy = errors.New("the session is in use")

// BusyError says which process holds a session.
type BusyError struct {
	ID  string
	PID int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("session %s is in use by another chat (pid %d)", ShortID(e.ID), e.PID)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Lock makes this process the one writer of session id until release (or
// until it exits: the kernel drops the lock). A session another process
// holds is a *BusyError naming it.
func (st Store) Lock(id string) (release func(), err error) {
	if err := st.ensureDir(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(st.lockPath(id), os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(st.lockPath(id))
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, &BusyError{ID: id, PID: pid}
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	// The file stays (removing it could let a process that opened it just
	// before hold a lock nobody else sees); Remove deletes it with the session.
	return func() { f.Close() }, nil
}
