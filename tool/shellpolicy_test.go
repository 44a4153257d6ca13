package tool

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// verdict runs a shell line through the policy: "deny", "allow" (without
// asking) or "ask".
func verdict(t testing.TB, p *Policy, line string) string {
	t.Helper()
	asked := false
	d, err := p.decide(context.Background(), Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Command: line}},
		ApproverFunc(func(context.Context, Request) (Decision, error) {
			asked = true
			return Decision{Verdict: Allow}, nil
		}))
	switch {
	case err != nil:
		t.Fatal(err)
	case d.Verdict == Deny:
		return "deny"
	case asked:
		return "ask"
	}
	return "allow"
}

func shellPolicy() *Policy {
	return &Policy{AllowShell: []string{"echo", "ls", "go test", "git status", "git diff", "cat", "grep", "true"},
		DenyShell: []string{"rm", "git push", "curl"}}
}

// TestShellDenySeesThrough feeds the bypasses an injected prompt would try
// against deny_shell: each names a denied command somewhere a string
// match cannot see. Deny wins over allow, --yes and "always".
func TestShellDenySeesThrough(t *testing.T) {
	t.Parallel()
	lines := []string{
		"rm -rf x", "true; rm x", "true && rm x", "false || rm x", "ls | rm x", "command rm x", "env rm x",
		"env -i FOO=1 rm x", "/bin/rm x", `\rm x`, "r''m x", `r"m" x`, `"rm" x`, "git -C . push", "git --git-dir=.git push origin",
		"git -c user.name=x push", "echo $(rm x)", "echo `rm x`", "bash -c 'rm x'", `sh -c "true; rm x"`, "bash -lc 'rm x'",
		"bash -o pipefail -c 'rm x'", "sudo rm x", "sudo -u root rm x", "timeout 5 rm x", "timeout -s KILL 5 rm x", "nice -n 5 rm x",
		"exec rm x", "nohup rm x &", `find . -name '*.o' -exec rm {} \;`, "xargs rm < list", "ls | xargs -0 rm", `eval "rm x"`,
		"(rm x)", "{ rm x; }", "f() { rm x; }; f", "if true; then rm x; fi", "for f in a b; do rm $f; done", "echo x | bash -c 'rm y'",
		`env -S "rm x"`, "cat <(rm x)", "time rm x", "echo ok\nrm x", "busybox sh -c 'rm x'", "bash -c \"bash -c 'rm x'\"",
		"curl https://example.com", "watch -n 1 rm x", "stdbuf -o0 rm x", "setsid rm x",
	}
	for _, yes := range []bool{false, true} {
		for _, line := range lines {
			p := shellPolicy()
			p.AllowAll = yes
			p.grants = []Grant{{Kind: GrantShell, Value: "rm"}, {Kind: GrantShell, Value: "git push"}}
			if got := verdict(t, p, line); got != "deny" {
				t.Errorf("--yes=%v %q: %s, want deny", yes, line, got)
			}
		}
	}
}

// TestShellAllowIsEveryCommand: a line runs without asking only when
// every command in it is on the allow list and none of its words can run
// or write something else.
func TestShellAllowIsEveryCommand(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"echo hi":                                 "allow",
		"ls -la | grep foo":                       "allow",
		"go test ./... 2>&1":                      "allow",
		"git status && git diff":                  "allow",
		"git -C . status":                         "ask",
		"echo hi > /dev/null":                     "allow",
		"cat go.mod | grep module":                "allow",
		"timeout 60 go test ./...":                "allow",
		`grep -n "a b" file`:                      "allow",
		"ls; touch x":                             "ask",
		"echo hi > file":                          "ask",
		"echo hi >> file":                         "ask",
		"echo hi &> file":                         "ask",
		"echo $(touch x)":                         "ask",
		"echo `touch x`":                          "ask",
		"ls | xargs touch":                        "ask",
		"ls | xargs echo":                         "ask",
		`go test -exec "bash -c 'touch x'" ./...`: "ask",
		"go test -exec=/tmp/x ./...":              "ask",
		"go test --exec=/tmp/x ./...":             "ask",
		"go test -toolexec x ./...":               "ask",
		"go test -o /tmp/x -c":                    "ask",
		"git diff --output=/tmp/x":                "ask",
		"git -c core.pager=x diff":                "ask",
		"git diff --ext-diff":                     "ask",
		"FOO=1 go test":                           "ask",
		"go test $(cat args)":                     "ask",
		"go test $ARGS":                           "ask",
		"go test *":                               "ask",
		"go test {-exec,x}":                       "ask",
		"ls() { touch x; }; ls":                   "ask",
		"export GOFLAGS=-toolexec=x; go test":     "ask",
		"go testify":                              "ask",
		"bash -c 'ls'":                            "ask",
		"echo hi | bash":                          "ask",
		"$X":                                      "ask",
		"sudo ls":                                 "ask",
		"env FOO=1 ls":                            "ask",
		"echo 'unterminated":                      "ask",
		"source ./env.sh":                         "ask",
		"cat <<EOF\nhi\nEOF":                      "allow",
		"ls >&2":                                  "allow",
		"ls >& out":                               "ask",
	}
	for line, want := range tests {
		if got := verdict(t, shellPolicy(), line); got != want {
			t.Errorf("%q: %s, want %s (%+v)", line, got, want, analyzeShell(line, ""))
		}
	}
}

// TestShellOpaqueAsksEvenWithYes: with a deny list, a line deny_shell
// cannot see into is not run on --yes alone; in print mode it is refused.
func TestShellOpaqueAsksEvenWithYes(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"$CMD x", "echo rm x | bash", `eval "$X"`, "bash -c \"$X\"", "sudo $X", "echo 'unterminated"} {
		p := shellPolicy()
		p.AllowAll = true
		if got := verdict(t, p, line); got != "ask" {
			t.Errorf("%q: %s, want ask", line, got)
		}
		d, _ := p.decide(context.Background(), Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Command: line}}, nil)
		if d.Verdict != Deny {
			t.Errorf("%q ran with --yes and nobody to ask", line)
		}
	}
	// Without a deny list, --yes means yes.
	if got := verdict(t, &Policy{AllowAll: true}, "$CMD x"); got != "allow" {
		t.Errorf("--yes without deny list: %s", got)
	}
}

// TestShellAlwaysCoversThePrefix: "always" for go test ./a allows later
// go test runs, not go vet, not a chained command, not go test -exec.
func TestShellAlwaysCoversThePrefix(t *testing.T) {
	t.Parallel()
	p := &Policy{}
	var offered [][]Grant
	always := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		offered = append(offered, r.Always)
		return Decision{Verdict: AllowAlways}, nil
	})
	ask := func(line string) bool {
		n := len(offered)
		if _, err := p.decide(context.Background(), Request{Tool: "run_shell", Review: Review{NeedsApproval: true, Command: line}}, always); err != nil {
			t.Fatal(err)
		}
		return len(offered) > n
	}
	if !ask("go test ./a") || offered[0][0].Value != "go test" {
		t.Fatalf("first: %+v", offered)
	}
	for line, want := range map[string]bool{"go test ./b -run X": false, "go vet ./...": true, "go test ./a; touch x": true, "go test -exec x ./a": true} {
		if got := ask(line); got != want {
			t.Errorf("%q asked=%v, want %v", line, got, want)
		}
	}
	// A risky line is never offered "always".
	if ask("echo hi > out"); len(offered[len(offered)-1]) != 0 {
		t.Errorf("always offered for a redirection: %+v", offered[len(offered)-1])
	}
}

// FuzzShellPolicy: a line the policy runs without asking never holds a
// denied or unlisted command. The oracle walks the syntax tree on its own,
// crudely unquoting each command's words.
func FuzzShellPolicy(f *testing.F) {
	for _, s := range []string{"echo hi", "ls -la | echo x", "true; rm x", `\rm x`, "r''m x", "echo $(rm x)", "command rm x",
		"env rm x", "bash -c 'rm x'", "ls > f", "find . -exec rm {} +", "echo `ls`", "git -C . push", "f() { rm; }; f", "xargs rm"} {
		f.Add(s)
	}
	allow := []string{"echo", "ls", "true"}
	wrappers := []string{"command", "builtin", "nohup", "nice", "timeout", "stdbuf", "setsid", "time", "exec", "ionice"}
	f.Fuzz(func(t *testing.T, line string) {
		p := &Policy{AllowShell: allow, DenyShell: []string{"rm"}}
		if verdict(t, p, line) != "allow" {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q does not parse, yet ran without asking", line)
		}
		strip := strings.NewReplacer(`\`, "", `'`, "", `"`, "")
		syntax.Walk(file, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var first string
			for i, w := range call.Args {
				var b strings.Builder
				syntax.NewPrinter().Print(&b, w)
				word := path.Base(strip.Replace(b.String()))
				if i == 0 {
					first = word
					if !slices.Contains(allow, word) && !slices.Contains(wrappers, word) {
						t.Fatalf("%q ran without asking and runs %q", line, word)
					}
				}
				// A wrapper's arguments are a command: rm there runs.
				if word == "rm" && (i == 0 || slices.Contains(wrappers, first)) {
					t.Fatalf("%q ran without asking and holds rm", line)
				}
			}
			return true
		})
	})
}

// TestAlwaysForAToolWithoutScope: a tool that asks but names no narrower
// scope gets "always" for itself, and only itself.
func TestAlwaysForAToolWithoutScope(t *testing.T) {
	t.Parallel()
	p := &Policy{}
	asked := 0
	always := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		asked++
		if len(r.Always) != 1 || r.Always[0] != (Grant{Kind: GrantTool, Value: r.Tool}) {
			t.Fatalf("offered %+v", r.Always)
		}
		return Decision{Verdict: AllowAlways}, nil
	})
	for _, name := range []string{"remote__deploy", "remote__deploy", "other__tool"} {
		if _, err := p.decide(context.Background(), Request{Tool: name, Review: Review{NeedsApproval: true}}, always); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 2 {
		t.Fatalf("asked %d times, want 2", asked)
	}
}
