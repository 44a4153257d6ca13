package app

import "errors"

// ErrTaken: the pending item asked to change was already taken by the
// turn (it is in the history).
var ErrTaken = errors.New("the turn has already taken it")

// Driver starts a run's turns for a front end that joins it: the page of
// `chat serve` drives its own; on a live REPL session (/serve) the REPL
// does, and the page steers through it. Text sent while a turn runs
// joins it (queue: waits for after it), as typing does in the REPL.
type Driver interface {
	Send(text string, queue bool) error
	// Stop cancels the running turn (the session goes on).
	Stop()
	// Pending is what was sent and not yet taken, in order.
	Pending() []Pending
	Edit(id uint64, text string) error
	Remove(id uint64) error
	Running() bool
	// OnPending is called with the pending list whenever it or whether a
	// turn runs changes (nil: nobody listens).
	OnPending(func([]Pending))
}

// Pending is text the person sent that no turn has taken yet.
type Pending struct {
	ID     uint64 `json:"id"`
	Text   string `json:"text"`
	Inject bool   `json:"inject"` // for the running turn (else after it)
	Input  uint64 `json:"-"`      // its Interloper item, when injected
}
