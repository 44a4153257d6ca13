package tool

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkJobStart: from run_shell with background to its result with
// the job's id and first output, for a command that prints at once (run
// directly here; the box adds its own start, measured in tool/sandbox).
func BenchmarkJobStart(b *testing.B) {
	js := &Jobs{}
	set := Rules{Policy: &Policy{AllowAll: true}}.Set(Builtins(Workspace{Root: b.TempDir(), Jobs: js})...)
	ctx := context.Background()
	for b.Loop() {
		r := set.Dispatch(ctx, "run_shell", `{"command":"echo ready; exec sleep 30","background":true}`)
		if !strings.Contains(r.Content, "ready") {
			b.Fatal(r.Content)
		}
		b.StopTimer()
		js.StopAll()
		b.StartTimer()
	}
}
