package html

import (
	"runtime"
	"testing"
)

// TestEntitiesBuiltOnFirstUse checks chat's patch: the entity tables are
// not built at init but by the first unescape that looks a name up, and
// only once. It must run before any other test unescapes (this file sorts
// first).
func TestEntitiesBuiltOnFirstUse(t *testing.T) {
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var got string
	first := allocated(func() { got = UnescapeString("fish &amp; chips &notin; &nGt;") })
	if got != "fish & chips ∉ ≫⃒" {
		t.Fatalf("UnescapeString = %q", got)
	}
	if first < 64<<10 {
		t.Errorf("the first unescape allocated %d bytes: the tables were built before it", first)
	}
	if again := allocated(func() { UnescapeString("&amp; &notin; &nGt;") }); again > 1<<10 {
		t.Errorf("a second unescape allocated %d bytes: the tables were built again", again)
	}
}
