package tool

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chatrepl/chat/tool/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.ServeIfAsked() // this test binary, started as a box
	os.Exit(m.Run())
}

// BenchmarkBoxedTrue: run_shell "true" in the box, with and without the
// network's proxy wired (its variables, the command's tag, the proxy
// started at the first command): the per-command cost it adds.
func BenchmarkBoxedTrue(b *testing.B) {
	if sandbox.Probe().ABI == 0 {
		b.Skip("no Landlock here")
	}
	for _, net := range []bool{false, true} {
		name := "net=off"
		if net {
			name = "net=on"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			c := NewConfinement(sandbox.Spec{Mode: sandbox.WorkspaceWrite, Workdir: dir, Bwrap: sandbox.FindBwrap("")}, []string{"PATH=" + os.Getenv("PATH")})
			if net {
				c.Net = &Network{}
			}
			defer c.Close()
			set := Rules{Policy: &Policy{AllowAll: true}}.Set(Builtins(Workspace{Root: dir, Shell: c})...)
			ctx := context.Background()
			if r := set.Dispatch(ctx, "run_shell", `{"command":"true"}`); !strings.Contains(r.Content, "exit status 0") {
				b.Fatal(r.Content) // the box starts here, outside the timing
			}
			for b.Loop() {
				if r := set.Dispatch(ctx, "run_shell", `{"command":"true"}`); !strings.Contains(r.Content, "exit status 0") {
					b.Fatal(r.Content)
				}
			}
		})
	}
}
