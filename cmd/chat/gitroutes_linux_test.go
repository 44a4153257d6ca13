//go:build linux

package main

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

// gitRoutes are the boxed commands that leave git config which runs a
// program by a route git reads and a parser of ours did not: each names
// the folder where the person then runs git, and the marker its program
// would touch.
func gitRoutes(out string) map[string]string {
	return map[string]string{
		// (a) extensions.worktreeConfig and .git/config.worktree
		"ra": "git init -q ra && git -C ra config core.repositoryformatversion 1 && git -C ra config extensions.worktreeConfig true && printf '[core]\\n\\tfsmonitor = touch " + out + "-a\\n' > ra/.git/config.worktree",
		// (b) .git/commondir pointing to a repository nobody reads
		"rb": "git init -q rb && mv rb/.git sb && mkdir rb/.git && cp sb/HEAD rb/.git/ && echo ../../sb > rb/.git/commondir && printf '[core]\\n\\tfsmonitor = touch " + out + "-b\\n' >> sb/config",
		// (c) a .git file whose gitdir: goes through a link
		"rc": "git init -q tc && mv tc/.git cdata && rmdir tc && printf '[core]\\n\\tfsmonitor = touch " + out + "-c\\n' >> cdata/config && ln -s cdata clink && mkdir rc && echo 'gitdir: ../clink' > rc/.git",
		// (e) the same in a subfolder of the existing repository
		"src/deep": "git init -q te && mv te/.git edata && rmdir te && printf '[core]\\n\\tfsmonitor = touch " + out + "-e\\n' >> edata/config && ln -s edata elink && mkdir -p src/deep && echo \"gitdir: $PWD/elink\" > src/deep/.git",
		// (f) a UTF-8 BOM before the first section
		"rf": "git init -q rf && { printf '\\357\\273\\277[core]\\n\\tfsmonitor = touch " + out + "-f\\n'; cat rf/.git/config; } > rf.cfg && mv rf.cfg rf/.git/config",
		// (g) ssh signing's key command, with signing on
		"rg": "git init -q rg && git -C rg config gpg.format ssh && git -C rg config gpg.ssh.defaultKeyCommand 'sh -c \"touch " + out + "-g; echo key::ssh-ed25519 AAAA\"' && git -C rg config commit.gpgSign true",
		// (i) a trailer's command
		"ri": "git init -q ri && git -C ri config trailer.sign.command 'touch " + out + "-i' && git -C ri config trailer.sign.ifmissing add && git -C ri config trailer.sign.where end",
		// and a repository made as work is made: its settings stay
		"rk": "git init -q rk && git -C rk config user.name bot && git -C rk remote add origin https://example.invalid/x.git",
	}
}

// personUsesGit is what the person types in a folder after chat: git
// status, a commit, a commit with a trailer.
const personUsesGit = "git status >/dev/null 2>&1; GIT_AUTHOR_NAME=p GIT_AUTHOR_EMAIL=p@x GIT_COMMITTER_NAME=p GIT_COMMITTER_EMAIL=p@x git commit -q --allow-empty -m x >/dev/null 2>&1; " +
	"GIT_AUTHOR_NAME=p GIT_AUTHOR_EMAIL=p@x GIT_COMMITTER_NAME=p GIT_COMMITTER_EMAIL=p@x git commit -q --allow-empty -m y --trailer 'sign: p' >/dev/null 2>&1; true"

// TestGitRoutesFailAsEveryUser: chat -p, as root and as an ordinary user,
// with bubblewrap and with chat's own namespaces, runs the commands that
// leave config git would run; then the person runs git in each folder,
// outside any box. No program of the model's runs (by outcome: no marker
// outside the box), and what work needs (a name, a remote) stays.
func TestGitRoutesFailAsEveryUser(t *testing.T) {
	t.Parallel()
	bwraps := boxEngines(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git (apt-get install git)")
	}
	for _, u := range asuser.Both(t) {
		for name, bwrap := range bwraps {
			t.Run(fmt.Sprintf("%s/%s", u.Name, name), func(t *testing.T) {
				t.Parallel()
				w := newGitWorld(t, u, bwrap)
				routes := gitRoutes(filepath.Join(w.outside, "pwned"))
				var lines []string
				for _, l := range routes {
					lines = append(lines, l)
				}
				srv := oaitest.New(t)
				srv.SetFallback(shellCalls(lines, nil))
				stdout, stderr, _ := w.chat(t, srv, "--max-steps", "40", "-p", "go")
				if !strings.Contains(stdout, "done") {
					t.Fatalf("chat did not answer:\n%s\n%s", stdout, stderr)
				}
				for dir := range routes {
					if out, err := w.as(exec.Command("bash", "-c", "cd "+filepath.Join(w.work, dir)+" && "+personUsesGit)).CombinedOutput(); err != nil {
						t.Fatalf("git in %s: %v %s", dir, err, out)
					}
				}
				w.noMarkers(t, stderr)
				if out, _ := w.as(exec.Command("git", "-C", filepath.Join(w.work, "rk"), "config", "user.name")).Output(); strings.TrimSpace(string(out)) != "bot" {
					t.Errorf("a plain setting (user.name) was undone: %q\nstderr:\n%s", out, stderr)
				}
				if out, _ := w.as(exec.Command("git", "-C", filepath.Join(w.work, "rk"), "remote", "get-url", "origin")).Output(); !strings.Contains(string(out), "example.invalid") {
					t.Errorf("a remote was undone: %q", out)
				}
				// The model was told what was undone, and why.
				var told strings.Builder
				for _, r := range srv.Requests() {
					for _, m := range r.Messages {
						told.WriteString(m.Text())
					}
				}
				if !strings.Contains(told.String(), "chat undid") || !strings.Contains(told.String(), "fsmonitor") {
					t.Errorf("the model was not told what was undone")
				}
			})
		}
	}
}

// gitWorld is a person's home and a repository to work in, theirs.
type gitWorld struct {
	*userWorld
	bin string
}

func newGitWorld(t *testing.T, u asuser.User, bwrap string) *gitWorld {
	t.Helper()
	base := asuser.DirIn(t, "/var/tmp", asuser.Current())
	w := &userWorld{u: u, base: base, home: filepath.Join(base, "home"), work: filepath.Join(base, "work"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{w.home + "/.config/chat", w.work + "/.git/hooks", w.work + "/src", w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.home, ".config/chat/config.toml"), []byte(fmt.Sprintf("[sandbox]\nbwrap = %q\n", bwrap)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", w.work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	asuser.Give(t, u, base)
	return &gitWorld{userWorld: w, bin: asuser.Executable(t, u, cmp.Or(os.Getenv("CHAT_ATTACK_BIN"), chatBin))}
}

// chat runs chat in the work folder as the person, against srv.
func (w *gitWorld) chat(t *testing.T, srv *oaitest.Server, args ...string) (stdout, stderr string, code int) {
	cmd := w.as(exec.Command(w.bin, args...))
	cmd.Dir = w.work
	cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret")
	return run(t, cmd)
}

// noMarkers fails t when a program of the model's ran outside the box.
func (w *gitWorld) noMarkers(t *testing.T, stderr string) {
	t.Helper()
	entries, _ := os.ReadDir(w.outside)
	var ran []string
	for _, e := range entries {
		ran = append(ran, e.Name())
	}
	if len(ran) > 0 {
		t.Errorf("as %s, the person's git ran the model's program: %v\nstderr:\n%s", w.u.Name, ran, stderr)
	}
}

// TestGitPlantedByAJobWhileTheREPLIsIdle: a background job (and a child a
// command left running with &) plants config after its call returned,
// while the REPL sits idle; the person's git status from another
// terminal then runs nothing of the model's, as root and as an ordinary
// user, with bubblewrap and with chat's own namespaces. The REPL says
// what it undid.
func TestGitPlantedByAJobWhileTheREPLIsIdle(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bwraps := boxEngines(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git (apt-get install git)")
	}
	for _, u := range asuser.Both(t) {
		for name, bwrap := range bwraps {
			t.Run(fmt.Sprintf("%s/%s", u.Name, name), func(t *testing.T) {
				t.Parallel()
				w := newGitWorld(t, u, bwrap)
				term := w.term(t)
				out := filepath.Join(w.outside, "pwned")
				srv := oaitest.New(t,
					bgCall("c1", "(sleep 2; git init -q rl && git -C rl config core.fsmonitor 'touch "+out+"-left' && touch planted-left; sleep 300) > /dev/null 2>&1 &", false),
					oaitest.Answer{Text: "left it running"},
					bgCall("j1", "sleep 2; git init -q rj && git -C rj config core.fsmonitor 'touch "+out+"-job' && touch planted-job; exec sleep 300", true),
					oaitest.Answer{Text: "started it"})
				term.startChat(srv)
				screen, waitScreen := term.screen, term.waitScreen
				told := true
				// First what a command left running with &, then a job: each
				// plants after its call returned, while the REPL is idle.
				for _, step := range []struct{ ask, answer, dir string }{{"leave something", "left it running", "rl"}, {"start a job", "started it", "rj"}} {
					term.ask(step.ask)
					if !waitScreen(step.answer) {
						t.Fatalf("the turn did not end:\n%s", screen())
					}
					planted := filepath.Join(w.work, "planted-"+map[string]string{"rl": "left", "rj": "job"}[step.dir])
					for deadline := time.Now().Add(60 * time.Second); !fileExists(planted); time.Sleep(50 * time.Millisecond) {
						if time.Now().After(deadline) {
							t.Fatalf("nothing was planted in %s:\n%s", step.dir, screen())
						}
					}
					// The person uses git in another terminal once chat had a
					// chance to look (the outcome is checked either way).
					told = waitScreen(step.dir+"/.git/config") && told
					if o, err := w.as(exec.Command("bash", "-c", "cd "+filepath.Join(w.work, step.dir)+" && "+personUsesGit)).CombinedOutput(); err != nil {
						t.Fatalf("git in %s: %v %s", step.dir, err, o)
					}
				}
				w.noMarkers(t, screen())
				if !told {
					t.Errorf("the REPL did not say what it undid:\n%s", screen())
				}
			})
		}
	}
}

// personTerm is the person's terminal: a tmux server of their own, with
// a shell in it.
type personTerm struct {
	t    *testing.T
	w    *gitWorld
	sock string
}

func (w *gitWorld) term(t *testing.T) *personTerm {
	p := &personTerm{t: t, w: w, sock: filepath.Join(w.base, "tmux")}
	p.tmux("new-session", "-d", "-s", "person", "-x", "160", "-y", "50", "bash --norc --noprofile")
	t.Cleanup(func() { _ = w.as(exec.Command("tmux", "-S", p.sock, "kill-server")).Run() })
	return p
}

func (p *personTerm) tmux(args ...string) string {
	p.t.Helper()
	out, err := p.w.as(exec.Command("tmux", append([]string{"-S", p.sock}, args...)...)).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

func (p *personTerm) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "person"}, keys...)...)
}

// ask types a line as it is, then Enter.
func (p *personTerm) ask(line string) {
	p.tmux("send-keys", "-t", "person", "-l", line)
	p.keys("Enter")
}

func (p *personTerm) screen() string {
	return p.tmux("capture-pane", "-p", "-J", "-t", "person", "-S", "-200")
}

// waitScreen waits (a minute at most) for what to show.
func (p *personTerm) waitScreen(what string) bool {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(p.screen(), what) {
			return true
		}
	}
	return false
}

// startChat starts the REPL in the work folder against srv.
func (p *personTerm) startChat(srv *oaitest.Server) {
	p.t.Helper()
	p.keys(fmt.Sprintf("cd %s && OPENAI_BASE_URL=%s CHAT_MODEL=scripted-model OPENAI_API_KEY=sk-test-secret %s", p.w.work, srv.BaseURL(), p.w.bin), "Enter")
	if !p.waitScreen("Ask anything") {
		p.t.Fatalf("the REPL did not start:\n%s", p.screen())
	}
}

// boxEngines are the engines an attack runs against, by name: bubblewrap
// when it is installed, and chat's own namespaces (bubblewrap pointed
// nowhere). Without Landlock there is no box to attack: the test skips.
func boxEngines(t *testing.T) map[string]string {
	t.Helper()
	if sandbox.Probe().ABI == 0 {
		t.Skip("no Landlock here")
	}
	bwraps := map[string]string{"without bubblewrap": "/nonexistent/bwrap"}
	if p := sandbox.FindBwrap(""); p != "" {
		bwraps["with bubblewrap"] = p
	}
	return bwraps
}
