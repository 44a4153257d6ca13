package control

import (
	"errors"
	"fmt"
)

// ErrStepLimitExceeded is matched (errors.Is) by every *StepLimitError.
var ErrStepLimitExceeded = errors.New("step limit exceeded")

// ErrBudgetExceeded is matched (errors.Is) by every *BudgetError.
var ErrBudgetExceeded = errors.New("turn budget exceeded")

// BudgetError says which budget of a Spend ran out: money (Cost) or
// tokens, its limit and what was spent.
type BudgetError struct {
	Cost         bool
	Limit, Spent float64
}

func (e *BudgetError) Error() string {
	if e.Cost {
		return fmt.Sprintf("cost budget of $%.4g spent ($%.4g)", e.Limit, e.Spent)
	}
	return fmt.Sprintf("token budget of %.0f spent (%.0f)", e.Limit, e.Spent)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

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
