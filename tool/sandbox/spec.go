package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is how much a command may do.
type Mode string

const (
	// WorkspaceWrite: reads anywhere, writes in the working directory (not
	// its .git or .chat), the temporary directory and the configured roots.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly: reads anywhere, writes nowhere (but /dev/null and ttys).
	ReadOnly Mode = "read-only"
	// Off: no box; the policy and the person decide.
	Off Mode = "off"
)

// ParseMode accepts the modes by name; "" is the default.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "":
		return WorkspaceWrite, nil
	case WorkspaceWrite, ReadOnly, Off:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: use workspace-write, read-only or off", s)
}

// Engine is what builds the box; Start picks the strongest that works.
type Engine string

const (
	// Bubblewrap: bwrap makes the namespaces and the mounts; the box adds
	// seccomp and Landlock inside.
	Bubblewrap Engine = "bubblewrap"
	// Namespaces: chat makes the namespaces itself (a user namespace for
	// every user), then seccomp and Landlock.
	Namespaces Engine = "namespaces"
	// LandlockOnly: no namespace could be made; Landlock grants reads and
	// writes entry by entry and seccomp closes every socket.
	LandlockOnly Engine = "landlock"
	// Plain: no confinement (mode off); the box only collects children.
	Plain Engine = "plain"
)

// Spec is what a box allows.
type Spec struct {
	Mode     Mode     `json:"mode"`
	Workdir  string   `json:"workdir"`
	Writable []string `json:"writable,omitempty"` // more roots, besides Workdir
	// TempDir is the box's own temporary directory on the host (a private
	// folder of the run's): inside a namespaced box it is mounted on /tmp.
	TempDir string `json:"tempdir,omitempty"`
	// Hidden are paths that look empty inside the box (folders that hold
	// credentials, sockets of the person's session).
	Hidden []string `json:"hidden,omitempty"`
	// Home is the person's home: hidden from the box but for HomeVisible
	// (read-only) and the writable roots under it ("": shown whole).
	Home        string   `json:"home,omitempty"`
	HomeVisible []string `json:"home_visible,omitempty"`
	// GoModCache is the person's Go module cache: commands get a cache of
	// their own, filled from it first.
	GoModCache string `json:"gomodcache,omitempty"`
	// Protected are the paths under Workdir that stay read-only; Start
	// fills it with FindProtected when it is nil.
	Protected []string `json:"protected,omitempty"`
	// Bwrap is bubblewrap's path; "" when there is none.
	Bwrap string `json:"bwrap,omitempty"`
	// Engine is set by Start: what built this box.
	Engine Engine `json:"engine,omitempty"`
	// Entered is set by the launcher: the box runs in the namespaces the
	// launcher made.
	Entered bool `json:"entered,omitempty"`
	// MaxProcs bounds the processes of the box (a fork bomb stops there).
	MaxProcs uint64 `json:"max_procs,omitempty"`
	// MaxMemory bounds the memory of the box's processes together, where
	// it gets a cgroup (0: half the machine's).
	MaxMemory uint64 `json:"max_memory,omitempty"`
	// NoNamespaces forces the Landlock-only box (tests: the machines where
	// user namespaces are refused).
	NoNamespaces bool `json:"no_namespaces,omitempty"`
}

// writableRoots are the roots a command may write under, absolute and
// existing; none in read-only mode.
func (s Spec) writableRoots() []string {
	if s.Mode != WorkspaceWrite {
		return nil
	}
	var out []string
	for _, r := range append([]string{s.Workdir, s.TempDir}, s.Writable...) {
		if real, err := filepath.EvalSymlinks(r); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// DefaultHidden are the usual homes of credentials and of the sockets of
// the person's session: inside the box they are empty.
func DefaultHidden(home string) []string {
	var out []string
	if home != "" {
		for _, p := range []string{".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".config/gcloud",
			".config/gh", ".password-store", ".netrc", ".git-credentials", ".config/git/credentials", ".pgpass",
			".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".vault-token", ".terraform.d",
			".config/hub", ".config/op", ".config/rclone", ".local/share/keyrings", ".mozilla", ".config/google-chrome",
			".config/chromium", ".config/BraveSoftware", ".bash_history", ".zsh_history", ".histfile",
			".local/share/fish/fish_history", ".python_history", ".psql_history", ".mysql_history", ".sqlite_history",
			".node_repl_history", ".lesshst", ".viminfo", ".Xauthority", ".ICEauthority",
			".config/chat", ".local/share/chat", ".local/state/chat"} {
			out = append(out, filepath.Join(home, p))
		}
	}
	out = append(out, "/var/run/docker.sock", "/run/docker.sock")
	// The person's session: systemd's user bus, gpg-agent, rootless Docker,
	// editors' server sockets.
	if uid := os.Getuid(); uid != 0 {
		out = append(out, fmt.Sprintf("/run/user/%d", uid))
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		out = append(out, d)
	}
	return out
}

// FindBwrap is bubblewrap's path: configured (which must exist), else
// the first bwrap on PATH; "" when there is none.
func FindBwrap(configured string) string {
	if configured != "" {
		if fi, err := os.Stat(configured); err == nil && !fi.IsDir() {
			return configured
		}
		return ""
	}
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return ""
	}
	return p
}

// coveredHidden are the hidden paths a namespaced box covers: not one
// that holds the working directory (hiding it would hide that), nor one
// under /tmp (the box's own).
func (s Spec) coveredHidden() []string {
	var out []string
	for _, p := range append(slices.Clone(s.Hidden), systemSecrets...) {
		if !within(p, s.Workdir) && !within("/tmp", p) {
			out = append(out, p)
		}
	}
	return out
}

// Layers names what an engine's box is made of, for a line.
func (e Engine) Layers() string {
	switch e {
	case Bubblewrap:
		return "bubblewrap + seccomp + Landlock"
	case Namespaces:
		return "namespaces + seccomp + Landlock"
	case LandlockOnly:
		return "Landlock + seccomp only: no namespaces"
	}
	return string(e)
}

// Title says what an engine's box is, for a heading.
func (e Engine) Title() string {
	switch e {
	case Bubblewrap:
		return "bubblewrap, with seccomp and Landlock inside"
	case Namespaces:
		return "namespaces chat makes itself, with seccomp and Landlock"
	}
	return "Landlock and seccomp alone (no namespace could be made)"
}

// within reports whether p is dir or under it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
