package listener

import "sync"

// Recorder keeps every event in memory. Sub-agents share it by reference, so
// one Recorder holds the whole tree's events in emission order.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// OnEvent records e.
func (r *Recorder) OnEvent(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}
