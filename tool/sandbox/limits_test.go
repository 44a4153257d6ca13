//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
)

// outerCgroup puts this test process in a cgroup of the test's own
// (outer/test, beside where it was), bounded well below the machine, so
// that a box whose limits fail cannot take the machine down either. The
// outer folder is delegated to u, as a desktop session's app.slice is: u
// may make the box's cgroup in it. Root only; false when no cgroup can
// be made here.
func outerCgroup(t *testing.T, u asuser.User) bool {
	t.Helper()
	if os.Getuid() != 0 {
		return true // the parent test, as root, did it
	}
	mounts, err := cgroupMounts()
	self, _ := os.ReadFile("/proc/self/cgroup")
	if err != nil || len(mounts) == 0 {
		return false
	}
	name := fmt.Sprintf("chat-test-outer-%d", os.Getpid())
	limits := map[string]map[string]string{
		"v2":     {"pids.max": "4096", "memory.max": strconv.FormatInt(8<<30, 10)},
		"pids":   {"pids.max": "4096"},
		"memory": {"memory.limit_in_bytes": strconv.FormatInt(8<<30, 10)},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		for _, ctrl := range controllersOf(parts) {
			mount, ok := mounts[ctrl]
			if !ok {
				continue
			}
			was := filepath.Join(mount, parts[2])
			outer := filepath.Join(mount, filepath.Dir(parts[2]), name)
			inner := filepath.Join(outer, "test")
			if ctrl == "v2" {
				// v2 keeps processes in leaves: outer enables the controllers for its children.
				if os.Mkdir(outer, 0o755) != nil || os.WriteFile(filepath.Join(outer, "cgroup.subtree_control"), []byte("+pids +memory"), 0) != nil {
					return false
				}
			} else if os.Mkdir(outer, 0o755) != nil {
				return false
			}
			t.Cleanup(func() {
				_ = os.WriteFile(filepath.Join(was, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
				for range 50 {
					os.Remove(inner)
					if os.Remove(outer) == nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			})
			for file, v := range limits[ctrl] {
				if err := os.WriteFile(filepath.Join(outer, file), []byte(v), 0); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(inner, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{outer, inner, filepath.Join(outer, "cgroup.procs"), filepath.Join(inner, "cgroup.procs")} {
				_ = os.Chown(p, u.UID, u.GID)
			}
			if err := os.WriteFile(filepath.Join(inner, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	return true
}

// TestForkBombAndMemoryHogStayInTheBox: a fork bomb in the box stops at
// its process bound while the person can still start programs, and a
// memory hog is killed at the box's memory bound; as root and as an
// ordinary user (in a cgroup delegated to them), in each engine that
// has namespaces. It all runs under an outer cgroup of the test's own.
func TestForkBombAndMemoryHogStayInTheBox(t *testing.T) {
	needLandlock(t)
	users := asuser.Both(t)
	if !outerCgroup(t, users[len(users)-1]) {
		t.Skip("no cgroup can be made here: the limits cannot be tested safely")
	}
	for _, u := range users {
		if u.UID != os.Getuid() {
			t.Run("as "+u.Name, func(t *testing.T) { asuser.RunTest(t, u) })
			continue
		}
		for _, engine := range []Engine{Bubblewrap, Namespaces} {
			t.Run(fmt.Sprintf("uid %d/%s", u.UID, engine), func(t *testing.T) {
				work := t.TempDir()
				spec := Spec{Mode: WorkspaceWrite, Workdir: work, TempDir: filepath.Join(t.TempDir(), "tmp"), MaxMemory: 256 << 20}
				if engine == Bubblewrap {
					if spec.Bwrap = FindBwrap(""); spec.Bwrap == "" {
						t.Skip("bubblewrap is not installed")
					}
				}
				b := startBox(t, spec)
				if b.Engine() != engine {
					t.Fatalf("the box is %s: %s", b.Engine(), b.Notes())
				}
				if strings.Contains(b.Notes(), "cgroup") {
					t.Fatalf("the box has no cgroup: %s", b.Notes())
				}
				out, _ := shell(t, b, work, "head -c 1G /dev/zero | tail > /dev/null; echo status $?")
				if !strings.Contains(out, "status 137") {
					t.Errorf("a 1 GiB hog was not killed at 256 MiB: %q", out)
				}
				// The bomb takes every process the box may have: its own
				// commands (or the box itself) may fail then, not the person.
				bash, _ := exec.LookPath("bash")
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, _ = b.Run(ctx, []string{bash, "-c", ":(){ :|:& };:; sleep 3"}, nil, work, io.Discard, time.Second)
				cancel()
				if err := exec.Command("true").Run(); err != nil {
					t.Errorf("the person cannot start a program during the bomb: %v", err)
				}
				b.Close()
				// The bomb ends with its box, and the next box works.
				if out, _ := shell(t, startBox(t, spec), work, "echo fine"); out != "fine\n" {
					t.Errorf("a new box after the bomb: %q", out)
				}
			})
		}
	}
}
