//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHomeHiddenInEveryEngine: with Home set, a file in it that is not
// shown cannot be read, a tool in a shown folder runs, and the working
// directory under it is writable, in each engine (Landlock alone too).
func TestHomeHiddenInEveryEngine(t *testing.T) {
	needLandlock(t)
	home := filepath.Join(t.TempDir(), "home")
	// Not under /tmp: the box puts its own folder there.
	if base, err := os.MkdirTemp("/var/tmp", "chat-home-"); err == nil {
		home = filepath.Join(base, "home")
		t.Cleanup(func() { os.RemoveAll(base) })
	}
	work := filepath.Join(home, "src", "work")
	for _, d := range []string{work, filepath.Join(home, ".local/bin"), filepath.Join(home, ".m2")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(home, ".m2/settings.xml"), []byte("HOME-SECRET"), 0o600)
	_ = os.WriteFile(filepath.Join(home, ".local/bin/mytool"), []byte("#!/bin/sh\necho MYTOOL-RAN\n"), 0o755)
	base := Spec{Mode: WorkspaceWrite, Workdir: work, Home: home, HomeVisible: HomeVisible(home, "", "", nil)}
	specs := map[string]Spec{}
	if bw := FindBwrap(""); bw != "" {
		s := base
		s.Bwrap = bw
		specs["bubblewrap"] = s
	}
	specs["namespaces"] = base
	ll := base
	ll.NoNamespaces = true
	specs["landlock"] = ll
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			spec.TempDir = t.TempDir()
			b := startBox(t, spec)
			out, _ := shell(t, b, work, "cat "+home+"/.m2/settings.xml; "+home+"/.local/bin/mytool; echo made > here.txt && cat here.txt")
			if strings.Contains(out, "HOME-SECRET") || !strings.Contains(out, "MYTOOL-RAN") || !strings.Contains(out, "made") {
				t.Errorf("%s box:\n%s", b.Engine(), out)
			}
		})
	}
}
