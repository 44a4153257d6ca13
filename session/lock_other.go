//go:build !unix

package session

import "errors"

// ErrBusy is a session another process is writing.
var ErrBusy = errors.New("the session is in use")

// Lock does nothing where there is no flock.
func (st Store) Lock(string) (func(), error) { return func() {}, nil }
