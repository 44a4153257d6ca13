// Package steps is the step budget as people write it, with one meaning
// everywhere: the --max-steps flag, the config's max_steps, an agent file's
// max_steps and /steps. It imports nothing, so config may use it too.
package steps

import (
	"fmt"
	"strconv"
)

// Budget is a step budget as a person writes it, with one meaning
// everywhere (the --max-steps flag, the config's max_steps, an agent
// file's max_steps, /steps): a positive number of tool calls per turn, or
// 0 for unlimited; -1, which agent files write, is read as unlimited too.
type Budget int

const (
	// Unlimited is the budget that never runs out.
	Unlimited Budget = 0
	// Default is the budget when nothing says otherwise.
	Default Budget = 16
)

// Parse reads a written budget; below -1 is an error.
func Parse(n int) (Budget, error) {
	switch {
	case n == -1:
		return Unlimited, nil
	case n < -1:
		return 0, fmt.Errorf("max_steps %d: give a number of steps, or 0 for unlimited", n)
	}
	return Budget(n), nil
}

// Max is the budget for a control.StepLimit (0: unlimited).
func (b Budget) Max() int { return int(b) }

// String is the budget as shown: a number or "unlimited".
func (b Budget) String() string {
	if b == Unlimited {
		return "unlimited"
	}
	return strconv.Itoa(int(b))
}
