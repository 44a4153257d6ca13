package control

import "sync"

// StepLimit is a per-turn budget of tool calls. A nil *StepLimit or a Max of
// 0 (or less) means unlimited.
type StepLimit struct {
	mu   sync.Mutex
	max  int
	used int
}

// NewStepLimit returns a budget of max steps; max <= 0 is unlimited.
func NewStepLimit(max int) *StepLimit { return &StepLimit{max: max} }

// Tick spends one step. It returns a *StepLimitError once more than Max
// steps were asked for in this turn; the failing step is not counted.
func (s *StepLimit) Tick() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max > 0 && s.used >= s.max {
		return &StepLimitError{Max: s.max}
	}
	s.used++
	return nil
}

// Reset starts a new turn's budget.
func (s *StepLimit) Reset() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.used = 0
	s.mu.Unlock()
}

// Max is the budget; 0 means unlimited.
func (s *StepLimit) Max() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max < 0 {
		return 0
	}
	return s.max
}

// SetMax changes the budget, for the running turn too (/steps N).
func (s *StepLimit) SetMax(max int) {
	s.mu.Lock()
	s.max = max
	s.mu.Unlock()
}

// Used is how many steps this turn has spent.
func (s *StepLimit) Used() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}
