package listener

import (
	"fmt"
	"io"
	"sync"
)

// Tokens is a running token count, and its cost where every completion
// was priced.
type Tokens struct {
	Prompt, Completion, Total, Cached int
	Cost                              float64
	Unpriced                          bool // some completion had no price
}

// TokenLog adds up Usage events per agent id. A sub-agent's fork counts under
// its own id from zero; all forks share one tally, so Totals sees the tree.
// When W is set, each Usage event is also written there as a line.
type TokenLog struct {
	tally *tokenTally
	id    string
	w     io.Writer
	// Local says the model runs on a local server: its lines say "local,
	// free" rather than a cost of $0.000000.
	Local bool
}

type tokenTally struct {
	mu    sync.Mutex
	byID  map[string]Tokens
	order []string
}

// NewTokenLog returns an empty log; w may be nil.
func NewTokenLog(w io.Writer) *TokenLog {
	return &TokenLog{tally: &tokenTally{byID: map[string]Tokens{}}, w: w}
}

// ForSubAgent implements Forker.
func (l *TokenLog) ForSubAgent(id string) Listener {
	return &TokenLog{tally: l.tally, id: id, w: l.w, Local: l.Local}
}

// OnEvent implements Listener.
func (l *TokenLog) OnEvent(e Event) {
	u, ok := e.(Usage)
	if !ok {
		return
	}
	t := l.tally
	t.mu.Lock()
	cur, seen := t.byID[l.id]
	if !seen {
		t.order = append(t.order, l.id)
	}
	cur.Prompt += u.Prompt
	cur.Completion += u.Completion
	cur.Total += u.Total
	cur.Cached += u.Cached
	cur.Cost += u.Cost
	cur.Unpriced = cur.Unpriced || !u.Priced
	t.byID[l.id] = cur
	t.mu.Unlock()
	if l.w != nil {
		name := l.id
		if name == "" {
			name = "main"
		}
		line := fmt.Sprintf("[tokens %s] prompt %d, completion %d, total %d", name, u.Prompt, u.Completion, u.Total)
		if u.Cached > 0 {
			line += fmt.Sprintf(" (%d of the prompt cached)", u.Cached)
		}
		switch {
		case l.Local && u.Cost == 0: // a price set for a local model is shown
			line += " · local, free"
		case u.Priced:
			line += fmt.Sprintf(" · $%.6f", u.Cost)
		}
		fmt.Fprintln(l.w, line)
	}
}

// Get returns the count for one agent id ("" is the main agent).
func (l *TokenLog) Get(id string) Tokens {
	l.tally.mu.Lock()
	defer l.tally.mu.Unlock()
	return l.tally.byID[id]
}

// IDs lists the agent ids seen, in order of first use.
func (l *TokenLog) IDs() []string {
	l.tally.mu.Lock()
	defer l.tally.mu.Unlock()
	return append([]string(nil), l.tally.order...)
}
