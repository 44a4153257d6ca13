package lsp

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func execStarter(ctx context.Context, argv []string, dir string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, stdin, stdout, stderr
	return cmd.Run()
}

func TestProbeTS(t *testing.T) {
	bin := os.Getenv("PROBE_TS")
	if bin == "" {
		t.Skip()
	}
	dir := t.TempDir()
	exec.Command("cp", "-r", os.Getenv("PROBE_TSMOD"), filepath.Join(dir, "node_modules")).Run()
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	main := filepath.Join(dir, "src/a.ts")
	m := &Manager{Root: dir, Servers: []Server{{Name: "ts", Command: []string{bin, "--stdio"}, Extensions: []string{".ts"}}},
		Start: execStarter, Wait: 30 * time.Second, Notice: func(s string) { t.Log("notice:", s) }}
	defer m.Close()
	for i, text := range []string{"export const n: number = \"s\";\n", "export const n: number = 1;\n", "export const n: number = \"s\";\n"} {
		os.WriteFile(main, []byte(text), 0o644)
		t0 := time.Now()
		r := m.Check(context.Background(), []string{main})
		t.Logf("%d: %v %+v", i, time.Since(t0), r)
		for _, c := range m.conns {
			t.Logf("files %+v open %v", c.files, c.open)
		}
	}
}
