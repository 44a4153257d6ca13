package control

import (
	"errors"
	"testing"
)

// TestSpendStopsAtTheLimit: a turn that has spent exactly its budget,
// in money or in tokens, stops; one a little under goes on.
func TestSpendStopsAtTheLimit(t *testing.T) {
	for _, c := range []struct {
		name          string
		maxTokens     int
		maxCost       float64
		tokens        int
		cost          float64
		stop, byMoney bool
	}{
		{"money exactly", 0, 0.5, 10, 0.5, true, true},
		{"money under", 0, 0.5, 10, 0.49, false, false},
		{"tokens exactly", 100, 0, 100, 0, true, false},
		{"tokens under", 100, 0, 99, 0, false, false},
		{"unlimited", 0, 0, 1 << 30, 1e6, false, false},
	} {
		s := NewSpend(c.maxTokens, c.maxCost)
		s.Add(c.tokens, c.cost)
		err := s.Check()
		var be *BudgetError
		if got := errors.As(err, &be); got != c.stop || (got && be.Cost != c.byMoney) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	var none *Spend
	if none.Check() != nil {
		t.Error("a nil budget stopped a turn")
	}
}
