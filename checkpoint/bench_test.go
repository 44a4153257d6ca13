package checkpoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func manyFiles(b *testing.B, n int) string {
	root := b.TempDir()
	for i := range n {
		write(b, root, fmt.Sprintf("d%03d/f%05d.go", i/100, i), fmt.Sprintf("package p%d\n// file %d\n", i/100, i), 0o644)
	}
	return root
}

// BenchmarkTakeUnchanged: a checkpoint of a 10,000-file tree that did not
// change since the last one (goal ≤ 30 ms).
func BenchmarkTakeUnchanged(b *testing.B) {
	root := manyFiles(b, 10_000)
	st := &Store{Dir: b.TempDir()}
	if _, _, err := st.Take(root, "t", "before"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := st.Take(root, "t", "before"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSinceLastUnchanged: what a command costs when a language
// server runs, besides its own work: the files it changed, found on a
// 10,000-file tree that did not change (goal ≤ 30 ms, as a checkpoint).
func BenchmarkSinceLastUnchanged(b *testing.B) {
	root := manyFiles(b, 10_000)
	st := &Store{Dir: b.TempDir()}
	if _, _, err := st.Take(root, "t", "before"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ch, err := st.SinceLast(root); err != nil || len(ch) != 0 {
			b.Fatal(ch, err)
		}
	}
}

// BenchmarkFirstTakeGoSource: the first checkpoint of Go's own source
// tree (goal ≤ 2 s).
func BenchmarkFirstTakeGoSource(b *testing.B) {
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("no Go source tree")
	}
	for b.Loop() {
		st := &Store{Dir: b.TempDir()}
		if _, _, err := st.Take(src, "t", "before"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(stored(st))/(1<<20), "MiB-stored")
		os.RemoveAll(st.Dir)
		b.StartTimer()
	}
}

// BenchmarkRestore100: rewinding a turn that changed 100 files of 1,000
// (goal ≤ 100 ms).
func BenchmarkRestore100(b *testing.B) {
	root := manyFiles(b, 1000)
	st := &Store{Dir: b.TempDir()}
	turn := 0
	for b.Loop() {
		b.StopTimer()
		turn++
		id := fmt.Sprint("t", turn)
		st.Take(root, id, "before")
		for i := range 100 {
			write(b, root, fmt.Sprintf("d%03d/f%05d.go", i/100, i*10), fmt.Sprintf("changed %d\n", turn), 0o644)
		}
		st.Take(root, id, "after")
		b.StartTimer()
		res, err := st.Rewind(root, id, false)
		if err != nil || len(res.Restored) != 100 {
			b.Fatal(len(res.Restored), err)
		}
	}
}
