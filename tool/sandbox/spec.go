package sandbox

import (
	"fmt"
	"os"
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

// Protected are the folders of the working directory that stay read-only:
// what is written there runs later, outside any box (git hooks and config,
// chat's own project settings).
var Protected = []string{".git", ".chat"}

// Spec is what a box allows.
type Spec struct {
	Mode     Mode     `json:"mode"`
	Workdir  string   `json:"workdir"`
	Writable []string `json:"writable,omitempty"` // more roots, besides Workdir
	TempDir  string   `json:"tempdir,omitempty"`  // chat's temporary directory (writable); Start fills it
	// Hidden are paths that look empty inside the box (folders that hold
	// credentials); they need the mount namespace.
	Hidden []string `json:"hidden,omitempty"`
	// Namespaces is set by Start: the box runs in its own namespaces.
	Namespaces bool `json:"namespaces,omitempty"`
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

// protectedPaths are the protected folders that exist in the working
// directory (a .git file of a worktree counts).
func (s Spec) protectedPaths() []string {
	var out []string
	for _, name := range Protected {
		p := filepath.Join(s.Workdir, name)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// DefaultHidden are the usual homes of credentials under home: inside the
// box they are empty.
func DefaultHidden(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, p := range []string{".ssh", ".aws", ".gnupg", ".azure", ".kube", ".docker", ".config/gcloud",
		".config/gh", ".password-store", ".netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc",
		".config/chat", ".local/share/chat"} {
		out = append(out, filepath.Join(home, p))
	}
	return append(out, "/var/run/docker.sock", "/run/docker.sock")
}
