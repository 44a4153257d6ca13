package control

import "sync"

// Interloper queues text the person sends while a turn runs. Push never
// blocks; Drain hands everything queued so far to the agent, in order.
type Interloper struct {
	mu    sync.Mutex
	items []string
}

// NewInterloper returns an empty queue.
func NewInterloper() *Interloper { return &Interloper{} }

// Push queues text; safe from any goroutine.
func (i *Interloper) Push(text string) {
	i.mu.Lock()
	i.items = append(i.items, text)
	i.mu.Unlock()
}

// Drain empties the queue and returns what it held, oldest first.
func (i *Interloper) Drain() []string {
	if i == nil {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	out := i.items
	i.items = nil
	return out
}

// Len is how many items wait.
func (i *Interloper) Len() int {
	if i == nil {
		return 0
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.items)
}

// Retract removes the oldest queued item equal to text, if it has not been
// drained yet, and reports whether it did (the person took it back to edit
// or delete it before the agent saw it).
func (i *Interloper) Retract(text string) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	for k, it := range i.items {
		if it == text {
			i.items = append(i.items[:k:k], i.items[k+1:]...)
			return true
		}
	}
	return false
}
