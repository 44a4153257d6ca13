// Package atomicfile replaces a file whole or not at all: the content goes
// to a temporary file beside it, which is synced and renamed over it, so a
// crash or a full disk leaves the old file or the new one, never half.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, mode perm (creating its folder, private
// to the user, when missing).
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a failure; gone after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
