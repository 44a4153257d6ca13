//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
)

// Each layer of the box holds on its own: a defect in one must not hide
// behind another (Landlock refusing what bubblewrap let through).

// envSeccompOnly makes this test binary load the box's seccomp filter and
// run the rest of its arguments (the control runs them without it).
const envSeccompOnly = "CHAT_TEST_SECCOMP_ONLY"

// seccompOnlyIfAsked is the child of TestSeccompLayerAlone.
func seccompOnlyIfAsked() {
	mode := os.Getenv(envSeccompOnly)
	if mode == "" {
		return
	}
	if mode == "filter" {
		if err := loadFilter(true); err != nil {
			os.Stderr.WriteString("loading the filter: " + err.Error() + "\n")
			os.Exit(3)
		}
	}
	i := len(os.Args) - 1
	for i > 0 && os.Args[i] != "--" {
		i--
	}
	argv := os.Args[i+1:]
	err := syscall.Exec(argv[0], argv, os.Environ())
	os.Stderr.WriteString(err.Error() + "\n")
	os.Exit(3)
}

// eachUser runs test as this process's user, and again as an ordinary
// one when this is root.
func eachUser(t *testing.T, test func(t *testing.T)) {
	for _, u := range asuser.Both(t) {
		if u.UID != os.Getuid() {
			t.Run("as "+u.Name, func(t *testing.T) { asuser.RunTest(t, u) })
			continue
		}
		test(t)
	}
}

// TestBubblewrapLayerAlone: the box bubblewrap makes, without chat's
// Landlock and filter inside it, mounts the host read-only: a write
// outside the workspace fails there, one inside succeeds.
func TestBubblewrapLayerAlone(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bubblewrap")
	}
	eachUser(t, func(t *testing.T) {
		// Not under /tmp: the box has its own.
		base, err := os.MkdirTemp("/var/tmp", "chat-layer-")
		if err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		work, outside := filepath.Join(base, "work"), filepath.Join(base, "outside")
		for _, d := range []string{work, outside} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		args := append(bwrapArgs(Spec{Mode: WorkspaceWrite, Workdir: work}, ""), "--", "/bin/sh", "-c",
			"echo x > "+filepath.Join(outside, "pwned")+"; echo x > /etc/chat-layer-test; echo ok > "+filepath.Join(work, "fine"))
		out, err := exec.Command(bwrap, args...).CombinedOutput()
		if _, statErr := os.Stat(filepath.Join(work, "fine")); statErr != nil {
			t.Skipf("bubblewrap cannot make a box here: %v\n%s", err, out)
		}
		for _, p := range []string{filepath.Join(outside, "pwned"), "/etc/chat-layer-test"} {
			if _, err := os.Stat(p); err == nil {
				os.Remove(p)
				t.Errorf("bubblewrap alone let %s be written", p)
			}
		}
	})
}

// TestSeccompLayerAlone: the filter alone, with no namespace around it,
// refuses a new namespace (unshare) that the same process makes without
// it.
func TestSeccompLayerAlone(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	eachUser(t, func(t *testing.T) {
		run := func(mode string) (string, error) {
			cmd := exec.Command(os.Args[0], "-test.run=^$", "--", unshare, "--user", "true")
			cmd.Env = append(os.Environ(), envSeccompOnly+"="+mode)
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		if out, err := run("control"); err != nil {
			t.Skipf("this machine refuses a user namespace anyway: %v %s", err, out)
		}
		out, err := run("filter")
		if err == nil || !strings.Contains(out, "Operation not permitted") {
			t.Fatalf("unshare under the filter: %v %s", err, out)
		}
	})
}
