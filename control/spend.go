package control

import "sync"

// Spend is a per-turn budget of tokens and of money (US dollars), read at
// the same boundaries as the StepLimit. A nil *Spend, or a limit of 0, is
// unlimited. One Spend may be shared by an agent and its sub-agents: the
// tree spends one budget.
type Spend struct {
	mu                sync.Mutex
	maxTokens, tokens int
	maxCost, cost     float64
}

// NewSpend returns a budget; 0 leaves that side unlimited.
func NewSpend(maxTokens int, maxCost float64) *Spend {
	return &Spend{maxTokens: maxTokens, maxCost: maxCost}
}

// Add records a completion's tokens and cost.
func (s *Spend) Add(tokens int, cost float64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.tokens += tokens
	s.cost += cost
	s.mu.Unlock()
}

// Check returns a *BudgetError once the turn has spent its tokens or its
// money.
func (s *Spend) Check() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.maxCost > 0 && s.cost >= s.maxCost:
		return &BudgetError{Cost: true, Limit: s.maxCost, Spent: s.cost}
	case s.maxTokens > 0 && s.tokens >= s.maxTokens:
		return &BudgetError{Limit: float64(s.maxTokens), Spent: float64(s.tokens)}
	}
	return nil
}

// Spent is what this turn has spent.
func (s *Spend) Spent() (tokens int, cost float64) {
	if s == nil {
		return 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens, s.cost
}

// Reset starts a new turn's budget.
func (s *Spend) Reset() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.tokens, s.cost = 0, 0
	s.mu.Unlock()
}
