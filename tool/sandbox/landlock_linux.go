package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// restrict applies Landlock to the box (every thread), as far as the
// kernel supports it. In the Landlock-only box the network is closed by
// the seccomp filter (UDP too), and reads are granted entry by entry
// around the hidden paths.
func restrict(spec Spec) error {
	cfg := landlock.V11
	cfg.HandledAccessNet = 0 // a private network namespace, or seccomp, closes the network
	rules := []landlock.Rule{
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/shm").IgnoreIfMissing(),
	}
	if spec.Engine == LandlockOnly {
		// The person's terminals stay out of reach: reading one steals keys.
		hidden := append(slices.Clone(spec.Hidden), "/dev/pts", "/dev/tty", "/dev/ptmx", "/dev/console")
		hidden = append(hidden, systemSecrets...)
		if spec.homeHidden() {
			hidden = append(hidden, spec.Home)
			visible, _ := spec.homeKept()
			for _, p := range visible {
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					rules = append(rules, grantAround(p, spec.Hidden, landlock.RODirs, landlock.ROFiles)...)
				} else if err == nil {
					rules = append(rules, landlock.ROFiles(p).IgnoreIfMissing())
				}
			}
		}
		rules = append(rules, grantAround("/", hidden, landlock.RODirs,
			landlock.ROFiles)...)
	} else {
		rules = append(rules, landlock.RODirs("/"),
			landlock.RWFiles("/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
			landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing())
	}
	for _, root := range spec.writableRoots() {
		rules = append(rules, writableRules(spec, root)...)
	}
	return cfg.BestEffort().Restrict(rules...)
}

// writableRules grants writing under root. Without a mount namespace the
// protected paths cannot be exempted from a grant on their parent, so
// the entries around them are granted one by one (new entries beside a
// protected path then cannot be made).
func writableRules(spec Spec, root string) []landlock.Rule {
	if spec.Engine != LandlockOnly {
		return []landlock.Rule{landlock.RWDirs(root).WithRefer().IgnoreIfMissing()}
	}
	return grantAround(root, spec.Protected, func(dirs ...string) landlock.FSRule { return landlock.RWDirs(dirs...).WithRefer() },
		landlock.RWFiles)
}

// grantAround grants root except the paths in out: where none lies
// under root, root whole; else each entry of root that is not excluded,
// descending into the ones that hold an excluded path.
func grantAround(root string, out []string, dirRule, fileRule func(...string) landlock.FSRule) []landlock.Rule {
	var below []string
	for _, p := range out {
		if within(root, p) {
			below = append(below, p)
		}
	}
	if len(below) == 0 {
		return []landlock.Rule{dirRule(root).IgnoreIfMissing()}
	}
	if slices.Contains(below, root) {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var rules []landlock.Rule
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		switch {
		case e.IsDir():
			rules = append(rules, grantAround(p, below, dirRule, fileRule)...)
		case slices.Contains(below, p), !e.Type().IsRegular():
			// A link resolves to a granted place or to none; devices and
			// sockets are granted by name where a command needs them.
		default:
			rules = append(rules, fileRule(p).IgnoreIfMissing())
		}
	}
	return rules
}
