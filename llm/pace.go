package llm

import (
	"context"
	"io"
	"time"
)

// readInterval is how often, at most, a dense stream is read: a
// sixteenth of a frame at 60 frames a second.
const readInterval = time.Millisecond

// pacedBody reads an event stream that arrives faster than it is consumed
// at most once a readInterval, so the chunks that arrived meanwhile are
// read, parsed and passed on together.
//
// A reader that keeps up with a fast stream wakes for every chunk, and a
// wake-up (the poller, a thread, the runtime's monitor thread) costs more
// than the chunk: consuming 20,000 chunks as fast as a local server sent
// them took 150–180 ms of CPU and ~1,400 context switches read as they
// came, 60–70 ms read a millisecond apart. A stream slower than that (a
// model's tokens, tens of milliseconds apart) is read as it comes, as
// before: a read that waited for its data, or filled the buffer, is not
// followed by a pause. A chunk of a dense stream waits a few milliseconds
// at most: a millisecond's timer fires after 1–2 ms (34 pauses of a
// 20,000-chunk answer: 1.4 ms on average, 3.5 at most), a fifth of a frame.
type pacedBody struct {
	io.ReadCloser
	dense bool      // the last read found its data at once
	last  time.Time // when it returned
	// now and wait are the clock; wait returns early when ctx is done.
	now  func() time.Time
	wait func(time.Duration)
}

func newPacedBody(ctx context.Context, body io.ReadCloser) *pacedBody {
	var timer *time.Timer
	return &pacedBody{ReadCloser: body, now: time.Now, wait: func(d time.Duration) {
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
	}}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.dense {
		if d := readInterval - b.now().Sub(b.last); d > 0 {
			b.wait(d)
		}
	}
	start := b.now()
	n, err := b.ReadCloser.Read(p)
	b.last = b.now()
	b.dense = err == nil && n > 0 && n < len(p) && b.last.Sub(start) < readInterval
	return n, err
}
