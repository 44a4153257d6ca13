package control

import "sync"

// StepLimit is a per-turn budget of tool calls. A nil *StepLimit or a Max of
// 0 (or less) means unlimited.
type StepLimit struct {
	mu   sync.Mutex
	max  int
	used int
	// parent is the budget of the turn this one is a share of (a
	// sub-agent's): each step spends both.
	parent *StepLimit
}

// Within makes s a share of parent's budget: a step counts against both,
// and either running out stops it. It returns s.
func (s *StepLimit) Within(parent *StepLimit) *StepLimit {
	s.mu.Lock()
	s.parent = parent
	s.mu.Unlock()
	return s
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
	if err := s.parent.Tick(); err != nil {
		return err
	}
	s.used++
	return nil
}

// Reset starts a new turn's budget (a share's own count; its parent's
// turn goes on).
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
	limit, _ := s.counts()
	return limit
}

// Used is how many steps this turn has spent.
func (s *StepLimit) Used() int {
	_, used := s.counts()
	return used
}

// counts is the budget (0: unlimited) and what this turn has spent; a nil
// StepLimit is unlimited and has spent nothing.
func (s *StepLimit) counts() (limit, used int) {
	if s == nil {
		return 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.max, 0), s.used
}

// SetMax changes the budget, for the running turn too (/steps N).
func (s *StepLimit) SetMax(max int) {
	s.mu.Lock()
	s.max = max
	s.mu.Unlock()
}
