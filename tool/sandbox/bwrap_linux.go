package sandbox

import "os"

// bwrapArgs build the box bubblewrap starts chat in: every namespace of
// its own (no network but its loopback, no other process, no terminal),
// no capability, the host read-only, a fresh /dev and /proc, the box's
// own folder on /tmp and an empty /dev/shm, the writable roots bound
// writable, the protected paths read-only over them and the hidden
// paths covered.
func bwrapArgs(spec Spec, self string) []string {
	a := []string{"--new-session", "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"}
	if spec.TempDir != "" && spec.TempDir != "/tmp" {
		a = append(a, "--bind", spec.TempDir, "/tmp")
	} else {
		a = append(a, "--tmpfs", "/tmp")
	}
	if spec.homeHidden() {
		visible, _ := spec.homeKept()
		a = append(a, "--perms", "0755", "--tmpfs", spec.Home)
		for _, p := range visible {
			a = append(a, "--ro-bind", p, p)
		}
	}
	for _, p := range spec.coveredHidden() {
		if spec.goneWithHome(p) {
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			a = append(a, "--perms", "0500", "--tmpfs", p, "--remount-ro", p)
		default:
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	bind := "--ro-bind"
	if spec.Mode == WorkspaceWrite {
		bind = "--bind"
	}
	for _, r := range append([]string{spec.Workdir}, spec.Writable...) {
		if _, err := os.Stat(r); err == nil {
			a = append(a, bind, r, r)
		}
	}
	if within("/tmp", self) {
		a = append(a, "--ro-bind", self, self) // a test binary: the box is it
	}
	for _, p := range spec.Protected {
		// A link is not followed: what it points at is outside, or
		// protected in its own right.
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink == 0 {
			a = append(a, "--ro-bind", p, p)
		}
	}
	return a
}
