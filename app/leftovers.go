package app

import (
	"slices"

	"github.com/chatrepl/chat/control"
)

// Sent is an item a person sent while a turn ran: injected into it (ID is
// its id in the Interloper) or queued for after it.
type Sent struct {
	Text   string
	Inject bool
	ID     uint64
}

// Leftovers empties in and returns what a turn that has ended never took,
// in the order the person sent it: the items of sent queued for after the
// turn and those injected that the turn did not take, then whatever else
// in still held (steered in by another hand: an editor's _chat/steer).
// Every front end calls it once the turn has ended, when nothing takes
// from in any more: what it returns starts the next round, or after a
// cancel goes back to the person. Nothing is ever dropped.
func Leftovers(in *control.Interloper, sent []Sent) []string {
	late := in.Drain()
	var next []string
	for _, it := range sent {
		if !it.Inject {
			next = append(next, it.Text)
			continue
		}
		if i := slices.IndexFunc(late, func(l control.Item) bool { return l.ID == it.ID }); i >= 0 {
			next = append(next, late[i].Text)
			late = slices.Delete(late, i, i+1)
		}
	}
	return append(next, control.Texts(late)...)
}
