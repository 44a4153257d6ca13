//go:build !linux

package nofollow

import "errors"

func openat2Beneath(int, string) (int, error) { return -1, errors.ErrUnsupported }
