package control

import "sync"

// Interloper queues text the person sends while a turn runs. Push never
// blocks; Drain hands everything queued so far to the agent, in order.
// Each item has an identity, so a host can tell which of its items the
// agent took (two equal texts are two items).
type Interloper struct {
	mu    sync.Mutex
	items []Item
	last  uint64
}

// Item is one queued text and the id Push gave it.
type Item struct {
	ID   uint64
	Text string
}

// NewInterloper returns an empty queue.
func NewInterloper() *Interloper { return &Interloper{} }

// Push queues text and returns its id; safe from any goroutine.
func (i *Interloper) Push(text string) uint64 {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.last++
	i.items = append(i.items, Item{ID: i.last, Text: text})
	return i.last
}

// Drain empties the queue and returns what it held, oldest first.
func (i *Interloper) Drain() []Item {
	if i == nil {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	out := i.items
	i.items = nil
	return out
}

// Texts are the texts of items, in order.
func Texts(items []Item) []string {
	out := make([]string, len(items))
	for k, it := range items {
		out[k] = it.Text
	}
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

// Retract removes the item id if it has not been drained yet, and
// reports whether it did (the person took it back to edit or delete it
// before the agent saw it).
func (i *Interloper) Retract(id uint64) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	for k, it := range i.items {
		if it.ID == id {
			i.items = append(i.items[:k:k], i.items[k+1:]...)
			return true
		}
	}
	return false
}
