package llm

// deltaBatch joins the text of consecutive chunks of one kind that were
// already read from the network together: a local server writes tokens
// faster than the screen or a pipe takes them, and each chunk passed on
// alone costs every listener an event (an allocation, a lock, a check of
// the clock). Chunks are joined only while the next event is already in
// the buffer, so nothing waits for the network to be shown: a slow stream
// still passes each chunk on as it comes.
type deltaBatch struct {
	kind   ChunkKind
	pieces int
	first  string // the only piece, passed on as it is
	joined []byte // the pieces, once there are more; reused
}

// add appends s, a piece of kind. It returns false when the batch holds
// another kind, which must be taken first.
func (b *deltaBatch) add(kind ChunkKind, s string) bool {
	if b.pieces > 0 && b.kind != kind {
		return false
	}
	b.kind = kind
	switch b.pieces {
	case 0:
		b.first = s
	case 1:
		b.joined = append(append(b.joined[:0], b.first...), s...)
	default:
		b.joined = append(b.joined, s...)
	}
	b.pieces++
	return true
}

// take empties the batch into one chunk (ok false: it was empty).
func (b *deltaBatch) take() (ch Chunk, ok bool) {
	switch b.pieces {
	case 0:
		return Chunk{}, false
	case 1:
		ch = Chunk{Kind: b.kind, Text: b.first}
	default:
		ch = Chunk{Kind: b.kind, Text: string(b.joined)}
	}
	b.pieces, b.first = 0, ""
	return ch, true
}
