package steps

import "testing"

func TestOneMeaning(t *testing.T) {
	t.Parallel()
	for in, want := range map[int]Budget{0: Unlimited, -1: Unlimited, 5: 5} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("%d: %v %v", in, got, err)
		}
	}
	if _, err := Parse(-2); err == nil {
		t.Error("-2 accepted")
	}
	if Unlimited.String() != "unlimited" || Budget(3).String() != "3" || Unlimited.Max() != 0 {
		t.Error("unlimited is not unlimited")
	}
}
