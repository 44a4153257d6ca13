package app

import "errors"

// ErrTaken: the pending item asked to change was already taken by the
// turn (it is in the history).
var ErrTaken = errors.New("the turn has already taken it")

// Driver is how a front end steers a run's turns: the run's Loop is the
// one implementation. Text sent while a turn runs joins it (queue: waits
// for after it), as typing does in the REPL.
type Driver interface {
	Send(text string, queue bool) error
	// Stop cancels the running turn for reason ("stopped in the
	// browser"); the session goes on.
	Stop(reason string)
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
