//go:build linux

package sandbox

import (
	"context"
	"io"
	"os/exec"
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
	for _, mode := range []Mode{Off, WorkspaceWrite} {
		b.Run("box="+string(mode), func(b *testing.B) {
			if mode != Off && Probe().ABI == 0 {
				b.Skip("no Landlock")
			}
			box, err := Start(Spec{Mode: mode, Workdir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer box.Close()
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
