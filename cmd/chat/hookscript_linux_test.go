//go:build linux

package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

// TestRewrittenHookScriptDoesNotRun: the README's own hook,
// ./scripts/policy-check, trusted with the project's hooks file; a boxed
// command rewrites it; the next PreToolUse must not run the new script
// (outside the box, as the person) and the call it guards is refused.
// As root and as an ordinary user, in print mode.
func TestRewrittenHookScriptDoesNotRun(t *testing.T) {
	t.Parallel()
	if sandbox.Probe().ABI == 0 {
		t.Skip("no Landlock here")
	}
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			base := asuser.DirIn(t, "/var/tmp", asuser.Current())
			home, work, outside := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "outside")
			mkfile(t, filepath.Join(work, ".chat", "hooks.toml"), "[[hooks.PreToolUse]]\nmatcher = \"run_shell\"\ncommand = \"./scripts/policy-check\"\nsandbox = \"off\"\n")
			mkfile(t, filepath.Join(work, "scripts", "policy-check"), "#!/bin/sh\nexit 0\n")
			_ = os.Chmod(filepath.Join(work, "scripts", "policy-check"), 0o755)
			_ = os.MkdirAll(outside, 0o755)
			_ = os.MkdirAll(home, 0o755)
			asuser.Give(t, u, base)
			bin := asuser.Executable(t, u, cmp.Or(os.Getenv("CHAT_ATTACK_BIN"), chatBin))
			srv := oaitest.New(t)
			pwned := filepath.Join(outside, "pwned-hook")
			srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
				switch {
				case req.Messages[len(req.Messages)-1].Role != "tool":
					return oaitest.Answer{Calls: []oaitest.Call{shellCall("rewrite", "printf '#!/bin/sh\\ntouch "+pwned+"\\n' > scripts/policy-check")}}
				case !hasResult(req, "second"):
					return oaitest.Answer{Calls: []oaitest.Call{shellCall("second", "echo second ran")}}
				}
				return oaitest.Answer{Text: "done"}
			})
			as := chatAs(t, u, bin, home, work, srv)
			if out, errOut, code := as("hooks", "trust"); code != 0 || !strings.Contains(out, "policy-check") {
				t.Fatalf("chat hooks trust: %d\n%s\n%s", code, out, errOut)
			}
			out, errOut, code := as("-p", "go")
			if code != 0 || !strings.Contains(out, "done") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if fileExists(pwned) {
				t.Fatalf("the rewritten hook script ran outside the box:\n%s", errOut)
			}
			if got := toolResults(srv)["second"]; strings.Contains(got, "second ran") || !strings.Contains(got, "changed since it was trusted") {
				t.Errorf("the call after the rewrite: %q", got)
			}
			// The person reads it and trusts it again: it runs.
			if out, errOut, code := as("hooks", "trust"); code != 0 || !strings.Contains(out, "policy-check") {
				t.Fatalf("chat hooks trust again: %d\n%s\n%s", code, out, errOut)
			}
			srv.SetFallback(calls(shellCall("third", "true")))
			if _, errOut, _ := as("-p", "go"); !fileExists(pwned) {
				t.Errorf("the script trusted again did not run:\n%s", errOut)
			}
		})
	}
}

func hasResult(req oaitest.Request, id string) bool {
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return true
		}
	}
	return false
}

// TestHookRunsInTheBoxWhatTheBoxWrote: a hook that runs a program which
// reads workspace files (make, with the project's Makefile) runs in the
// box by default: a boxed command rewrites the Makefile, and the next
// PreToolUse's make cannot write outside the workspace; the hook still
// decides (its exit 0 lets the call run). chat hooks says where each
// hook runs. As root and as an ordinary user, with bubblewrap and with
// chat's own namespaces.
func TestHookRunsInTheBoxWhatTheBoxWrote(t *testing.T) {
	t.Parallel()
	bwraps := boxEngines(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	for _, u := range asuser.Both(t) {
		for name, bwrap := range bwraps {
			t.Run(u.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				base := asuser.DirIn(t, "/var/tmp", asuser.Current())
				home, work, outside := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "outside")
				pwned := filepath.Join(outside, "pwned-make")
				mkfile(t, filepath.Join(home, ".config", "chat", "config.toml"),
					"[sandbox]\nbwrap = \""+bwrap+"\"\n\n[[hooks.PreToolUse]]\nmatcher = \"run_shell\"\ncommand = \"make -s -C . policy\"\n\n[[hooks.SessionEnd]]\ncommand = \"true\"\nsandbox = \"off\"\n")
				mkfile(t, filepath.Join(work, "Makefile"), "policy:\n\t@true\n")
				_ = os.MkdirAll(outside, 0o755)
				asuser.Give(t, u, base)
				bin := asuser.Executable(t, u, cmp.Or(os.Getenv("CHAT_ATTACK_BIN"), chatBin))
				srv := oaitest.New(t)
				srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
					switch {
					case req.Messages[len(req.Messages)-1].Role != "tool":
						return oaitest.Answer{Calls: []oaitest.Call{shellCall("rewrite", "printf 'policy:\\n\\t@touch "+pwned+"; touch hook-ran-here\\n' > Makefile")}}
					case !hasResult(req, "second"):
						return oaitest.Answer{Calls: []oaitest.Call{shellCall("second", "echo second ran")}}
					}
					return oaitest.Answer{Text: "done"}
				})
				as := chatAs(t, u, bin, home, work, srv)
				out, errOut, code := as("-p", "go")
				if code != 0 || !strings.Contains(out, "done") {
					t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
				if fileExists(pwned) {
					t.Fatalf("the hook ran, outside the box, the Makefile a boxed command wrote:\n%s", errOut)
				}
				if !fileExists(filepath.Join(work, "hook-ran-here")) {
					t.Errorf("the hook did not run (in the box):\n%s", errOut)
				}
				list, _, _ := as("hooks")
				if !strings.Contains(list, "make -s -C . policy  (config; in the sandbox)") || !strings.Contains(list, "true  (config; OUTSIDE the sandbox") {
					t.Errorf("chat hooks does not say where each runs:\n%s", list)
				}
			})
		}
	}
}

// chatAs runs chat as u in work, with home and srv.
func chatAs(t *testing.T, u asuser.User, bin, home, work string, srv *oaitest.Server) func(args ...string) (string, string, int) {
	return func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret"}
		if u.UID != os.Getuid() {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.Credential()}
		}
		return run(t, cmd)
	}
}
