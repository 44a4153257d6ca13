//go:build !linux

package checkpoint

import "errors"

func openat2Beneath(int, string) (int, error) { return -1, errors.ErrUnsupported }
