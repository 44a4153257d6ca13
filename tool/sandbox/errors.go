package sandbox

import "errors"

// ErrBoxGone is a command sent to a box that has ended: it did not run.
var ErrBoxGone = errors.New("the sandbox has ended")
