package syntax

import (
	"runtime"
	"testing"
)

// TestCategoriesBuiltOnFirstUse checks chat's patch: the map of unicode
// categories is built by the first expression that names one, not at init,
// and only once. It must run before any other test of the package (it is
// the only one).
func TestCategoriesBuiltOnFirstUse(t *testing.T) {
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	parse := func() {
		if _, err := Parse(`\p{Greek}+\P{Lu}`, RegexOptions(0)); err != nil {
			t.Fatal(err)
		}
	}
	first, again := allocated(parse), allocated(parse)
	if first < again+8<<10 {
		t.Errorf("the first parse allocated %d bytes, the second %d: the categories were built before the first", first, again)
	}
	if _, err := Parse(`\p{NoSuchCategory}`, RegexOptions(0)); err == nil {
		t.Error("an unknown category parsed")
	}
}
