package textbuf

import (
	"runtime"
	"strings"
	"testing"
)

// TestWriteStringDoubles checks what the package is for: an answer of
// 20,000 four-byte pieces allocates under three times its size on the way
// (a strings.Builder: about five).
func TestWriteStringDoubles(t *testing.T) {
	const pieces, piece = 20000, "tok "
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var b Builder
	for range pieces {
		b.WriteString(piece)
	}
	runtime.ReadMemStats(&after)
	size := pieces * len(piece)
	if b.String() != strings.Repeat(piece, pieces) {
		t.Fatalf("text of %d bytes, want %d", b.Len(), size)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 3*uint64(size) {
		t.Errorf("%d bytes allocated for a text of %d", allocated, size)
	}
}

func BenchmarkAnswer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var t Builder
		for range 20000 {
			t.WriteString("tok ")
		}
	}
}
