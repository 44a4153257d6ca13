//go:build linux

package sandbox

import (
	"context"
	"io"
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
// state before and after (this repository's tree).
func BenchmarkProtectedScan(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		GuardRepos(root).Undo()
	}
}
