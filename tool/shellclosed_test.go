package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNoCommandIsNotHarmless: lines with no simple command whose
// operands bash computes (array subscripts run commands) asked nobody on
// the previous main.
func TestNoCommandIsNotHarmless(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`[[ 'a[$(id > pwned)]' -eq 0 ]]`, `[[ -v 'a[$(touch pwned)]' ]]`, `[[ -n ${a['$(touch pwned)']} ]]`,
		`for x in 'a[$(touch pwned)]'; do (( x )); done`, `(( a[$(touch pwned)] ))`, `< /dev/tcp/127.0.0.1/9`,
		`let 'x=a[$(touch pwned)]'`, `read 'a[$(touch pwned)]' <<< 1`,
	} {
		for _, p := range []*Policy{{}, shellPolicy()} {
			if got := verdict(t, p, line); got != "ask" {
				t.Errorf("%q: %s, want ask", line, got)
			}
		}
	}
}

// TestDenyCannotBeWalkedAround: with deny_shell = rm, git push, curl
// and --yes, none of these runs without a person.
func TestDenyCannotBeWalkedAround(t *testing.T) {
	t.Parallel()
	lines := []string{
		"/bin/r[m] x", "/usr/bin/r? x", "bash /dev/stdin <<<'rm x'", "bash <(echo rm x)", "source /dev/stdin <<<'rm x'",
		"trap 'rm x' EXIT", "PS4='$(rm x)'; set -x; true", "mapfile -C 'rm' -c 1 a <<< x", "hash -p /bin/rm ll; ll x",
		"alias ll='r\\m'\nll x", "alias ll=\"r''m\"\nll x", "env -iS 'rm x'", "env --split-string='rm x'", "env -iu X rm x",
		"exec -la foo rm x", "timeout -vs KILL 5 rm x", "ls | xargs -tn 1 rm", "flock L rm x", "taskset -c 0 rm x",
		"chrt 1 rm x", "prlimit --nofile=10 rm x", "unshare -r rm x", "setpriv --reuid=0 rm x", "script -qc 'rm x' /dev/null",
		"strace -f rm x", "runuser -u u rm x", "git -c alias.p=push p", "git -c alias.x='!rm x' x",
		"git -c core.fsmonitor='rm x' status", "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm x' .",
		"cat < /dev/tcp/127.0.0.1/80", "bash script.sh", "c=url; cur$c x",
	}
	for _, line := range lines {
		p := shellPolicy()
		p.AllowAll = true
		if got := verdict(t, p, line); got == "allow" {
			t.Errorf("--yes %q: allowed, want ask or deny (%+v)", line, analyzeShell(line, ""))
		}
	}
}

// TestAllowListDoesNotEscape: allow_shell = echo, git diff, git status,
// go test, ls, cat without --yes: these must ask.
func TestAllowListDoesNotEscape(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := []string{
		"env --split-string='touch p' ls", "env -iu ls touch p", "exec -la ls touch p", "for PATH in bin; do ls; done",
		"go test -ldflags='-linkmode=external -extld=./evil.sh' ./...", "go test -cpuprofile=/abs ./...", "go test -coverprofile=/abs/c ./...",
		"go test -memprofile /abs/m ./...", "go test -outputdir=/abs ./...", "git -C vendor/evil.git diff", "git --git-dir=vendor/evil.git diff",
		"git diff --no-index /etc/passwd /dev/null", "cat ~/.ssh/id_rsa", "cat /etc/passwd", "cat ../../secret", "cat < /etc/shadow",
		"ls /", strings.Repeat("$(", 20000) + "x" + strings.Repeat(")", 20000),
	}
	p := &Policy{AllowShell: []string{"echo", "git diff", "git status", "go test", "ls", "cat"}}
	for _, line := range lines {
		d, asked := decideIn(t, p, line, dir)
		if d != "deny" && !asked {
			t.Errorf("%.80q: ran without asking", line)
		}
	}
	for _, line := range []string{"ls", "cat go.mod", "git status", "go test ./...", "echo " + filepath.Join(dir, "x")} {
		if d, asked := decideIn(t, p, line, dir); d != "allow" || asked {
			t.Errorf("%q: %s (asked %v), want allow", line, d, asked)
		}
	}
	// A repository whose config makes git run a program: git asks.
	_ = os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n\tfsmonitor = ./evil.sh\n"), 0o644)
	if _, asked := decideIn(t, p, "git status", dir); !asked {
		t.Error("git status ran without asking in a repository whose config runs a program")
	}
}

// TestHugeLineIsBounded: a 36 KB line of nested $( is refused unread, at
// once (it held chat for 90 s).
func TestHugeLineIsBounded(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("$(", 18000) + "x" + strings.Repeat(")", 18000)
	done := make(chan shellAnalysis, 1)
	go func() { done <- analyzeShell(line, "") }()
	select {
	case a := <-done:
		if len(a.opaque) == 0 {
			t.Fatal("the huge line was not marked as unchecked")
		}
	case <-time.After(time.Minute):
		t.Fatal("the analysis did not end")
	}
}

// decideIn runs the policy for a line in dir; asked reports whether the
// person was asked.
func decideIn(t *testing.T, p *Policy, line, dir string) (string, bool) {
	t.Helper()
	asked := false
	d, err := p.decide(context.Background(), Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Command: line, Target: dir}},
		ApproverFunc(func(context.Context, Request) (Decision, error) {
			asked = true
			return Decision{Verdict: Deny}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Verdict == Deny && !asked {
		return "deny", false
	}
	if d.Verdict == Deny {
		return "ask", true
	}
	return "allow", asked
}

// TestNoSandboxAsksEveryCommand: where a sandbox was wanted and the kernel
// has none, every command asks: allow lists and "always" do not cover it,
// the prompt says it runs unconfined; --yes is the person's own answer.
func TestNoSandboxAsksEveryCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shell := RunShell{Workspace: Workspace{Root: dir, Shell: &Confinement{Wanted: "workspace-write", Mode: "off", Unavailable: "this kernel has no Landlock"}}}
	review, err := shell.Review(context.Background(), []byte(`{"command":"ls"}`))
	if err != nil || !review.AskAlways || !strings.Contains(review.Warning, "unconfined") {
		t.Fatalf("%+v %v", review, err)
	}
	p := &Policy{AllowShell: []string{"ls"}}
	p.Grant(Grant{Kind: GrantShell, Value: "ls"})
	asked := false
	d, _ := p.decide(context.Background(), Request{Tool: "run_shell", Review: review}, ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked = true
		if len(r.Always) > 0 {
			t.Errorf("always offered without a sandbox: %v", r.Always)
		}
		return Decision{Verdict: Deny}, nil
	}))
	if !asked || d.Verdict != Deny {
		t.Fatal("an allowed command ran without a sandbox and without asking")
	}
	p.AllowAll = true
	if d, _ := p.decide(context.Background(), Request{Tool: "run_shell", Review: review}, nil); d.Verdict != Allow {
		t.Fatal("--yes did not approve")
	}
}

// TestLeavingAsksWhateverElseSaysYes: --yes, allow_tools, allow_shell and
// "always" never let a command out of the box; only a person's answer.
func TestLeavingAsksWhateverElseSaysYes(t *testing.T) {
	t.Parallel()
	shell := RunShell{Workspace: Workspace{Root: t.TempDir(), Shell: &Confinement{Wanted: "workspace-write", Mode: "workspace-write"}}}
	review, _ := shell.Review(context.Background(), []byte(`{"command":"ls","unsandboxed":true,"justification":"network"}`))
	p := &Policy{AllowAll: true, AllowTools: []string{"run_shell"}, AllowShell: []string{"ls"}}
	p.Grant(Grant{Kind: GrantShell, Value: "ls"})
	if d, _ := p.decide(context.Background(), Request{Tool: "run_shell", Review: review}, nil); d.Verdict != Deny {
		t.Fatal("left the box with nobody to ask")
	}
	inBox, _ := shell.Review(context.Background(), []byte(`{"command":"touch x"}`))
	if d, _ := (&Policy{}).decide(context.Background(), Request{Tool: "run_shell", Review: inBox}, nil); d.Verdict != Allow {
		t.Fatal("a command in the box asked")
	}
	if d, _ := (&Policy{DenyShell: []string{"touch"}}).decide(context.Background(), Request{Tool: "run_shell", Review: inBox}, nil); d.Verdict != Deny {
		t.Fatal("deny_shell did not apply in the box")
	}
}
