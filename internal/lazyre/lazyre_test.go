package lazyre

import "testing"

func TestCompiledOnceOnFirstUse(t *testing.T) {
	re := New(`a(b+)`)
	if first, again := re(), re(); first != again {
		t.Fatal("compiled twice")
	}
	if got := re().FindStringSubmatch("xabbb")[1]; got != "bbb" {
		t.Fatalf("%q", got)
	}
}

func TestInvalidPanicsAtFirstUse(t *testing.T) {
	re := New(`a(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression compiled")
		}
	}()
	re()
}
