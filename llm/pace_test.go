package llm

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// stepReader returns one piece per Read, each taking took on the clock.
type stepReader struct {
	pieces []string
	took   time.Duration
	clock  *time.Time
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.pieces) == 0 {
		return 0, io.EOF
	}
	*r.clock = r.clock.Add(r.took)
	n := copy(p, r.pieces[0])
	r.pieces = r.pieces[1:]
	return n, nil
}

// paced reads body through a pacedBody on a clock of its own, and returns
// what it read and the pauses it made.
func paced(t *testing.T, took time.Duration, bufSize int, pieces ...string) (string, []time.Duration) {
	t.Helper()
	clock := time.Unix(0, 0)
	var waits []time.Duration
	b := &pacedBody{
		ReadCloser: io.NopCloser(&stepReader{pieces: pieces, took: took, clock: &clock}),
		now:        func() time.Time { return clock },
		wait:       func(d time.Duration) { waits = append(waits, d); clock = clock.Add(d) },
	}
	var got strings.Builder
	buf := make([]byte, bufSize)
	for {
		n, err := b.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			return got.String(), waits
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestADenseStreamIsReadOnceAnInterval(t *testing.T) {
	got, waits := paced(t, 10*time.Microsecond, 64, "data: a\n\n", "data: b\n\n", "data: c\n\n")
	if got != "data: a\n\ndata: b\n\ndata: c\n\n" {
		t.Fatalf("read %q", got)
	}
	// After each read that found its data at once, an interval passes
	// before the next (this clock stands still between reads).
	if len(waits) != 3 {
		t.Fatalf("paused %d times (%v), want before each read after the first", len(waits), waits)
	}
	for _, w := range waits {
		if w != readInterval {
			t.Fatalf("paused %v, want %v each", waits, readInterval)
		}
	}
}

func TestASlowStreamIsReadAsItComes(t *testing.T) {
	// A model's tokens: each read waits for its data.
	if _, waits := paced(t, 20*time.Millisecond, 64, "data: a\n\n", "data: b\n\n", "data: c\n\n"); len(waits) != 0 {
		t.Fatalf("paused %v between reads that waited for their data", waits)
	}
	// A full buffer: more is waiting, read it at once.
	if _, waits := paced(t, 0, 4, "abcd", "efgh", "ijkl"); len(waits) != 0 {
		t.Fatalf("paused %v after reads that filled the buffer", waits)
	}
}

func TestAPauseEndsWhenTheRequestIsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b := newPacedBody(ctx, io.NopCloser(strings.NewReader("")))
	cancel()
	done := make(chan struct{})
	go func() {
		b.wait(time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the pause outlived the request")
	}
}
