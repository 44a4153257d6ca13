//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkShellTrue: `bash -c true` started directly (as run_shell does
// with the sandbox off and no box), in the plain box, and in the
// workspace-write box once it runs; and the cost of starting a box (paid
// once per run, at the first command).
func BenchmarkShellTrue(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	argv := []string{bash, "-c", "true"}
	b.Run("unsandboxed", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bash, "-c", "true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The box of each engine (the per-command overhead is its figure minus
	// unsandboxed's).
	for _, e := range []Engine{Plain, Bubblewrap, Namespaces, LandlockOnly} {
		b.Run("box="+string(e), func(b *testing.B) {
			spec := Spec{Mode: WorkspaceWrite, Workdir: b.TempDir()}
			switch e {
			case Plain:
				spec.Mode = Off
			case Bubblewrap:
				if spec.Bwrap = FindBwrap(""); spec.Bwrap == "" {
					b.Skip("no bubblewrap")
				}
			case LandlockOnly:
				spec.NoNamespaces = true
			}
			if e != Plain && Probe().ABI == 0 {
				b.Skip("no Landlock")
			}
			box, err := Start(spec)
			if err != nil {
				b.Fatal(err)
			}
			defer box.Close()
			if box.Engine() != e {
				b.Skipf("the box is %s here", box.Engine())
			}
			for b.Loop() {
				if code, err := box.Run(context.Background(), argv, nil, "/", io.Discard, time.Second); err != nil || code != 0 {
					b.Fatal(code, err)
				}
			}
		})
	}
	b.Run("box-start", func(b *testing.B) {
		if Probe().ABI == 0 {
			b.Skip("no Landlock")
		}
		dir := b.TempDir()
		for b.Loop() {
			box, err := Start(Spec{Mode: WorkspaceWrite, Workdir: dir})
			if err != nil {
				b.Fatal(err)
			}
			box.Close()
			<-box.done
		}
	})
}

// BenchmarkProtectedScan: what run_shell adds to each boxed command
// besides the box: looking for protected paths, and the repositories'
// check after it (this repository's tree, nothing changed).
func BenchmarkProtectedScan(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	g := NewGitGuard(root)
	g.Accept()
	for b.Loop() {
		UndoProtected(root, FindProtected(root))
		g.Check()
	}
}

// BenchmarkGitWatchIdle: one tick of the repositories' watch while a job
// runs and nothing changes, in a workspace of 10,000 files (100 folders
// of 100) with a repository: the CPU it costs a second is twice this
// (gitWatchEvery is 500 ms). A tick that finds a change runs git.
func BenchmarkGitWatchIdle(b *testing.B) {
	root := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	// A job runs for long: the folders have been still for a while (a
	// folder changed within stillFor is read at every tick).
	time.Sleep(stillFor + 500*time.Millisecond)
	g := NewGitGuard(root)
	g.Accept()
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if undone := g.Check(); len(undone) > 0 {
				b.Fatal(undone)
			}
		}
	})
	b.Run("planted", func(b *testing.B) {
		cfg := filepath.Join(root, ".git", "config")
		clean, _ := os.ReadFile(cfg)
		for b.Loop() {
			if err := os.WriteFile(cfg, append(clean, "[core]\n\tfsmonitor = touch x\n"...), 0o644); err != nil {
				b.Fatal(err)
			}
			if undone := g.Check(); len(undone) != 1 {
				b.Fatal(undone)
			}
		}
	})
}
