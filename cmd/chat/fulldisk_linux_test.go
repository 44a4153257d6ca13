package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// TestPrintModeFullDiskIsNotSuccess: on a disk too full for the session
// (a small tmpfs), print mode still prints the answer, warns, and exits
// 3, never 0. As root and as an ordinary user.
func TestPrintModeFullDiskIsNotSuccess(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			answer := strings.Repeat("a long answer that fills the disk. ", 2000) // 70 KB
			r := newUserRun(t, u, oaitest.New(t, oaitest.Answer{Text: answer}))
			data := filepath.Join(r.home, "data")
			if err := os.MkdirAll(data, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("tmpfs", data, "tmpfs", 0, fmt.Sprintf("size=32k,mode=0755,uid=%d,gid=%d", u.UID, u.GID)); err != nil {
				t.Skipf("mount tmpfs: %v", err)
			}
			t.Cleanup(func() { _ = syscall.Unmount(data, syscall.MNT_DETACH) })
			cmd := r.command("-p", "say a lot")
			cmd.Env = append(cmd.Env, "XDG_DATA_HOME="+data)
			out, errOut, code := run(t, cmd)
			if code != 3 || !strings.Contains(out, "fills the disk") || !strings.Contains(errOut, "session file may be incomplete") {
				t.Fatalf("exit %d (want 3), the answer printed: %v\nstderr:\n%s", code, strings.Contains(out, "fills the disk"), errOut)
			}
		})
	}
}
