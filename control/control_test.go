package control

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestStepLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit *StepLimit
		ticks int
		fail  int // index of the first failing tick, -1 for none
	}{
		{"nil is unlimited", nil, 100, -1},
		{"zero is unlimited", NewStepLimit(0), 100, -1},
		{"negative is unlimited", NewStepLimit(-1), 100, -1},
		{"two", NewStepLimit(2), 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := -1
			for i := range tt.ticks {
				if err := tt.limit.Tick(); err != nil {
					var se *StepLimitError
					if !errors.Is(err, ErrStepLimitExceeded) || !errors.As(err, &se) || se.Max != tt.limit.Max() {
						t.Fatalf("tick %d: %v", i, err)
					}
					got = i
					break
				}
			}
			if got != tt.fail {
				t.Fatalf("first failure at %d, want %d", got, tt.fail)
			}
		})
	}
	s := NewStepLimit(1)
	_ = s.Tick()
	s.Reset()
	if err := s.Tick(); err != nil {
		t.Fatalf("after Reset: %v", err)
	}
}

func TestCancellable(t *testing.T) {
	t.Parallel()
	c := NewCancellable()
	ctx := c.Context()
	if c.Check() != nil {
		t.Fatal("fresh cancellable reports cancelled")
	}
	c.Cancel("user pressed ctrl+c")
	c.Cancel("second reason is ignored")
	<-ctx.Done()
	err := c.Check()
	var ce *CancelledError
	if !errors.Is(err, ErrCancelled) || !errors.As(err, &ce) || ce.Reason != "user pressed ctrl+c" {
		t.Fatalf("Check = %v", err)
	}
	c.Reset()
	if c.Check() != nil || c.Context().Err() != nil {
		t.Fatal("Reset did not arm a fresh turn")
	}
	if ctx.Err() == nil {
		t.Fatal("the old turn's context came back to life")
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	c := NewCancellable()
	s := NewStepLimit(1000)
	in := NewInterloper()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				in.Push(fmt.Sprint(g, i))
				_ = s.Tick()
				_ = c.Check()
				_ = c.Context()
				if i == 50 {
					c.Cancel("x")
				}
			}
		})
	}
	drained := 0
	for drained < 800 {
		drained += len(in.Drain())
	}
	wg.Wait()
	if in.Len() != 0 || s.Used() != 800 {
		t.Fatalf("len %d used %d", in.Len(), s.Used())
	}
}

func TestInterloperKeepsOrder(t *testing.T) {
	t.Parallel()
	in := NewInterloper()
	in.Push("a")
	in.Push("b")
	if got := Texts(in.Drain()); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("Drain = %q", got)
	}
	if in.Drain() != nil {
		t.Fatal("second Drain not empty")
	}
}

func TestInterloperRetract(t *testing.T) {
	t.Parallel()
	in := NewInterloper()
	first := in.Push("a")
	b := in.Push("b")
	second := in.Push("a")
	// Two equal texts are two items: the one taken back is the one named.
	if !in.Retract(second) || in.Retract(9999) {
		t.Fatal("Retract")
	}
	got := in.Drain()
	if len(got) != 2 || got[0] != (Item{first, "a"}) || got[1] != (Item{b, "b"}) {
		t.Fatalf("after Retract: %v", got)
	}
	if in.Retract(b) {
		t.Fatal("retracted a delivered item")
	}
}

// TestStepLimitWithin: a share spends its parent's budget too; either
// running out stops it; resetting the share leaves the parent's count.
func TestStepLimitWithin(t *testing.T) {
	t.Parallel()
	turn := NewStepLimit(3)
	share := NewStepLimit(10).Within(turn)
	for i := 0; i < 3; i++ {
		if err := share.Tick(); err != nil {
			t.Fatal(i, err)
		}
	}
	var se *StepLimitError
	if err := share.Tick(); !errors.As(err, &se) || se.Max != 3 || turn.Used() != 3 || share.Used() != 3 {
		t.Fatalf("%v: turn %d share %d", err, turn.Used(), share.Used())
	}
	share.Reset()
	if err := share.Tick(); err == nil {
		t.Fatal("a reset share escaped its turn's budget")
	}
	small := NewStepLimit(1).Within(NewStepLimit(5))
	_ = small.Tick()
	if err := small.Tick(); !errors.As(err, &se) || se.Max != 1 {
		t.Fatalf("its own cap: %v", err)
	}
}
