package control

import (
	"errors"
	"fmt"
)

// ErrStepLimitExceeded is matched (errors.Is) by every *StepLimitError.
var ErrStepLimitExceeded = errors.New("step limit exceeded")

// ErrCancelled is matched (errors.Is) by every *CancelledError.
var ErrCancelled = errors.New("turn cancelled")

// StepLimitError reports which budget ran out.
type StepLimitError struct{ Max int }

func (e *StepLimitError) Error() string {
	return fmt.Sprintf("step limit of %d exceeded", e.Max)
}

func (e *StepLimitError) Is(target error) bool { return target == ErrStepLimitExceeded }

// CancelledError carries the reason given to Cancellable.Cancel.
type CancelledError struct{ Reason string }

func (e *CancelledError) Error() string {
	if e.Reason == "" {
		return ErrCancelled.Error()
	}
	return ErrCancelled.Error() + ": " + e.Reason
}

func (e *CancelledError) Is(target error) bool { return target == ErrCancelled }
