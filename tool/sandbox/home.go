package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The person's home is hidden from the box but for what tools need: the
// toolchains and caches found there, the folders on PATH under it, and
// what the person adds ([sandbox] home_read). Everything else in it (the
// credential files no list could name) looks absent. What is shown is
// read-only: a cache a command fills is the box's own copy.

// homeToolchains are the folders under HOME that toolchains and package
// managers run from or read their caches in.
var homeToolchains = []string{
	"go/bin", "go/pkg/mod", "sdk", ".config/go",
	".cargo/bin", ".cargo/registry", ".cargo/git", ".cargo/config.toml", ".cargo/config", ".rustup",
	".npm", ".nvm", ".volta", ".bun", ".deno", ".local/share/pnpm", ".yarn",
	".pyenv", ".local/bin", ".local/lib", ".local/pipx", ".cache/pip",
	".sdkman", ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".jdks",
	".rbenv", ".gem/ruby", ".asdf", ".local/share/mise", ".nix-profile",
	".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
}

// HomeVisible is what a box shows of home: the toolchains found there,
// the folders on path under it, self (chat's executable, which the box
// runs) and extra. Only what exists is listed.
func HomeVisible(home, path, self string, extra []string) []string {
	if home == "" || home == "/" {
		return nil
	}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if p == home || !within(home, p) || slices.Contains(out, p) {
			return
		}
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	for _, rel := range homeToolchains {
		add(filepath.Join(home, rel))
	}
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			add(dir)
		}
	}
	if self != "" {
		add(self)
	}
	for _, p := range extra {
		add(p)
	}
	slices.Sort(out)
	// A folder already shown shows what is under it.
	return slices.DeleteFunc(out, func(p string) bool {
		return slices.ContainsFunc(out, func(q string) bool { return q != p && within(q, p) })
	})
}

// systemSecrets are files of the system a box never reads, even where it
// runs as root in its namespace.
var systemSecrets = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
	"/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
	"/etc/sudoers", "/etc/ssl/private"}

// homeHidden reports whether the box hides spec.Home: not one under /tmp
// (the box's /tmp is its own: such a home is out of sight already), nor
// the working directory or above it (the person chose to work there).
func (s Spec) homeHidden() bool {
	return s.Home != "" && s.Home != "/" && !within("/tmp", s.Home) && !within(s.Workdir, s.Home)
}

// homeKept are the paths under Home the box shows: the visible ones
// read-only, the writable roots (the working directory) as they are.
func (s Spec) homeKept() (visible, writable []string) {
	for _, p := range s.HomeVisible {
		if within(s.Home, p) {
			visible = append(visible, p)
		}
	}
	for _, r := range append([]string{s.Workdir}, s.Writable...) {
		if within(s.Home, r) && r != s.Home {
			writable = append(writable, r)
		}
	}
	return visible, writable
}

// goneWithHome reports whether p is under a hidden home and not under
// what it shows: covering it is needless (and would make its folders).
func (s Spec) goneWithHome(p string) bool {
	if !s.homeHidden() || !within(s.Home, p) {
		return false
	}
	visible, writable := s.homeKept()
	return !slices.ContainsFunc(append(visible, writable...), func(v string) bool { return within(v, p) })
}

// goEnv is what a command in the box uses for Go: its own module cache and
// GOPATH in the box's folder (the person's are read-only there), filled
// first from the person's cache where there is one (a file:// proxy: no
// download for what is there), then from their GOPROXY; -modcacherw so
// that chat can remove it.
func goEnv(env []string, tmp, modcache string) []string {
	if tmp == "" {
		return nil
	}
	get := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	proxy := get("GOPROXY")
	if proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	if modcache != "" {
		proxy = "file://" + filepath.Join(modcache, "cache", "download") + "," + proxy
	}
	flags := strings.TrimSpace(get("GOFLAGS") + " -modcacherw")
	return []string{"GOPATH=" + tmp + "/go", "GOMODCACHE=" + tmp + "/go/pkg/mod", "GOPROXY=" + proxy, "GOFLAGS=" + flags}
}
