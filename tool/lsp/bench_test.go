package lsp

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func execStarter(ctx context.Context, argv []string, dir string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, stdin, stdout, stderr
	return cmd.Run()
}

// copyRepo copies this repository's tracked files into a new folder:
// the edits land there, never in the tree being built.
func copyRepo(b *testing.B) string {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skip("not in a git checkout")
	}
	src := strings.TrimSpace(string(top))
	files, err := exec.Command("git", "-C", src, "ls-files").Output()
	if err != nil {
		b.Fatal(err)
	}
	dst := b.TempDir()
	for _, rel := range strings.Split(strings.TrimSpace(string(files)), "\n") {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			continue // deleted in the working tree
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dst
}

// BenchmarkEditToDiagnostics: an edit of a file of this repository (the
// session package) to gopls's verdict on it, gopls warm (the workspace
// loaded by a first edit). Each edit breaks or mends the file in turn, so
// every verdict is new. Reports the median of the edits in ms.
func BenchmarkEditToDiagnostics(b *testing.B) {
	gopls, _ := filepath.Abs("../../testdata/lsp/bin/gopls")
	if _, err := os.Stat(gopls); err != nil {
		b.Skip("gopls is not installed (make lsp-servers)")
	}
	root := copyRepo(b)
	file := filepath.Join(root, "session", "message.go")
	clean, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	broken := append(append([]byte{}, clean...), []byte("\nfunc broken() { undefinedName() }\n")...)
	m := &Manager{Root: root, Start: execStarter, Wait: time.Minute,
		Servers: []Server{{Name: "gopls", Command: []string{gopls}, Extensions: []string{".go"}, RootMarkers: []string{"go.mod"}}}}
	defer m.Close()
	edit := func(text []byte) Report {
		if err := os.WriteFile(file, text, 0o644); err != nil {
			b.Fatal(err)
		}
		return m.Check(context.Background(), []string{file})
	}
	edit(broken) // start and load
	edit(clean)
	var took []time.Duration
	i := 0
	for b.Loop() {
		text := clean
		if i%2 == 0 {
			text = broken
		}
		i++
		t0 := time.Now()
		rep := edit(text)
		took = append(took, time.Since(t0))
		if len(rep.Files) != 1 || !rep.Files[0].Fresh || (len(rep.Files[0].Diags) > 0) != (i%2 == 1) {
			b.Fatalf("edit %d: %+v", i, rep)
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
}

// BenchmarkCheckWithoutServer: what an edit pays when no server takes
// the file: none found on PATH, or one found for another language.
func BenchmarkCheckWithoutServer(b *testing.B) {
	file := filepath.Join(b.TempDir(), "notes.md")
	for _, tc := range []struct {
		name    string
		servers []Server
	}{
		{"none", nil},
		{"other-language", []Server{{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := &Manager{Root: filepath.Dir(file), Start: execStarter, Servers: tc.servers}
			b.ReportAllocs()
			for b.Loop() {
				if rep := m.Check(context.Background(), []string{file}); len(rep.Files) != 0 {
					b.Fatalf("%+v", rep)
				}
			}
			if len(m.Running()) != 0 {
				b.Fatal("a server started")
			}
		})
	}
}
