package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/tool/sandbox"
)

// worktreeWorld is a person's repository with one commit (a.txt), chat
// with the box, as u.
type worktreeWorld struct {
	*gitWorld
	t *testing.T
}

func newWorktreeWorld(t *testing.T, u asuser.User) *worktreeWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git (apt-get install git)")
	}
	if sandbox.Probe().ABI == 0 {
		t.Skip("no Landlock here")
	}
	w := &worktreeWorld{gitWorld: newGitWorld(t, u, sandbox.FindBwrap("")), t: t}
	if err := os.WriteFile(filepath.Join(w.work, "a.txt"), []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asuser.Give(t, u, w.work)
	w.git("add", "a.txt")
	w.git("commit", "-qm", "first")
	return w
}

// git runs git in the main tree as the person.
func (w *worktreeWorld) git(args ...string) string {
	w.t.Helper()
	return w.gitIn(w.work, args...)
}

func (w *worktreeWorld) gitIn(dir string, args ...string) string {
	w.t.Helper()
	cmd := w.as(exec.Command("git", args...))
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// chatIn runs chat in dir as the person.
func (w *worktreeWorld) chatIn(dir string, srv *oaitest.Server, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	cmd := w.as(exec.Command(w.bin, args...))
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=p@x")
	if srv != nil {
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret")
	}
	return run(w.t, cmd)
}

func (w *worktreeWorld) read(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestWorktreeSessionsDoNotCollide: two print-mode sessions with
// different --worktree names edit a.txt at the same time; neither sees
// the other's edit, the main tree keeps its own, a boxed command cannot
// write the main tree, each one's checkpoints list only its own file;
// then chat worktree list shows both, merge brings one in and stops on
// the other's conflict naming the file, rm refuses uncommitted work. As
// root and as an ordinary user.
func TestWorktreeSessionsDoNotCollide(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorktreeWorld(t, u)
			mainA := filepath.Join(w.work, "a.txt")
			session := func(name string) *oaitest.Server {
				shell := fmt.Sprintf("echo %s >> a.txt && echo mine > %s.txt && cat a.txt; echo intruder > %s; echo intruder > %s/intruder-%s.txt",
					name, name, mainA, w.work, name)
				return oaitest.New(t, call("s1", "run_shell", `{"command":`+quote(shell)+`}`), oaitest.Answer{Text: "done " + name})
			}
			srvs := map[string]*oaitest.Server{"one": session("one"), "two": session("two")}
			var wg sync.WaitGroup
			outs := map[string]string{}
			var mu sync.Mutex
			for name, srv := range srvs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stdout, stderr, code := w.chatIn(w.work, srv, "--worktree", name, "-p", "edit a.txt")
					mu.Lock()
					outs[name] = fmt.Sprintf("exit %d\n%s\n%s", code, stdout, stderr)
					mu.Unlock()
				}()
			}
			wg.Wait()
			for name, srv := range srvs {
				if !strings.Contains(outs[name], "done "+name) {
					t.Fatalf("%s did not answer:\n%s", name, outs[name])
				}
				tree := w.work + ".worktrees/" + name
				other := map[string]string{"one": "two", "two": "one"}[name]
				if got := w.read(filepath.Join(tree, "a.txt")); got != "base\n"+name+"\n" {
					t.Errorf("%s's a.txt: %q\n%s", name, got, outs[name])
				}
				// What the model read back is its own edit alone.
				var told strings.Builder
				for _, r := range srv.Requests() {
					told.WriteString(r.Messages[len(r.Messages)-1].Text())
				}
				if !strings.Contains(told.String(), "base\n"+name) || strings.Contains(told.String(), "base\n"+other) {
					t.Errorf("%s's command read: %s", name, told.String())
				}
				cp, stderr, code := w.chatIn(tree, nil, "checkpoints")
				if code != 0 || !strings.Contains(cp, name+".txt") || strings.Contains(cp, other+".txt") || strings.Contains(cp, "intruder") {
					t.Errorf("chat checkpoints in %s (exit %d):\n%s%s", name, code, cp, stderr)
				}
			}
			if got := w.read(mainA); got != "base\n" {
				t.Fatalf("the main tree's a.txt: %q", got)
			}
			if entries, _ := filepath.Glob(filepath.Join(w.work, "intruder-*")); len(entries) > 0 {
				t.Fatalf("a boxed command in a worktree wrote the main tree: %v", entries)
			}
			list, _, _ := w.chatIn(w.work, nil, "worktree", "list")
			for _, want := range []string{"one", "chat/one", "two", "chat/two", "a.txt", "idle"} {
				if !strings.Contains(list, want) {
					t.Fatalf("chat worktree list lacks %q:\n%s", want, list)
				}
			}
			if diff, _, _ := w.chatIn(w.work, nil, "worktree", "diff", "one"); !strings.Contains(diff, "+one") || !strings.Contains(diff, "one.txt") {
				t.Fatalf("chat worktree diff one:\n%s", diff)
			}
			if sessions, _, _ := w.chatIn(w.work, nil, "sessions", "list"); !strings.Contains(sessions, "[worktree one]") || !strings.Contains(sessions, "[worktree two]") {
				t.Fatalf("chat sessions list does not mark the worktrees' sessions:\n%s", sessions)
			}
			if out, stderr, code := w.chatIn(w.work, nil, "worktree", "merge", "one"); code != 0 {
				t.Fatalf("merge one: exit %d\n%s%s", code, out, stderr)
			}
			if got := w.read(mainA); got != "base\none\n" {
				t.Fatalf("a.txt after merging one: %q", got)
			}
			_, stderr, code := w.chatIn(w.work, nil, "worktree", "merge", "two")
			if code == 0 || !strings.Contains(stderr, "conflicts in a.txt") {
				t.Fatalf("merge two: exit %d, %s", code, stderr)
			}
			w.git("merge", "--abort")
			tree2 := w.work + ".worktrees/two"
			if err := os.WriteFile(filepath.Join(tree2, "later.txt"), []byte("not committed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			asuser.Give(t, u, tree2)
			if _, stderr, code := w.chatIn(w.work, nil, "worktree", "rm", "two"); code == 0 || !strings.Contains(stderr, "uncommitted changes (later.txt)") {
				t.Fatalf("rm with uncommitted work: exit %d, %s", code, stderr)
			}
			if _, err := os.Stat(tree2); err != nil {
				t.Fatal("the refused rm removed the tree")
			}
			if out, stderr, code := w.chatIn(w.work, nil, "worktree", "rm", "--force", "two"); code != 0 || !strings.Contains(out, "is not merged and is kept") {
				t.Fatalf("rm --force: exit %d\n%s%s", code, out, stderr)
			}
			if out, stderr, code := w.chatIn(w.work, nil, "worktree", "rm", "one"); code != 0 || !strings.Contains(out, "and its branch chat/one") {
				t.Fatalf("rm of a merged worktree: exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestIsolatedSubAgentLeavesTheTreeAlone: a persona with isolation =
// "worktree" writes a file; the main tree has none of it, its branch
// holds it (committed), and the caller is told which branch. As root and
// as an ordinary user.
func TestIsolatedSubAgentLeavesTheTreeAlone(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorktreeWorld(t, u)
			config := filepath.Join(w.home, ".config/chat/config.toml")
			prior := w.read(config)
			if err := os.WriteFile(config, []byte(prior+"\n[agents.coder]\ninstructions = \"You write code.\"\nisolation = \"worktree\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			srv := oaitest.New(t,
				call("d1", "agent", `{"name":"coder","task":"write sub.txt"}`),
				call("s1", "run_shell", `{"command":"echo from the sub-agent > sub.txt && echo changed >> a.txt"}`),
				oaitest.Answer{Text: "wrote sub.txt"},
				oaitest.Answer{Text: "all done"})
			stdout, stderr, code := w.chatIn(w.work, srv, "-p", "delegate it")
			if code != 0 || !strings.Contains(stdout, "all done") {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(w.work, "sub.txt")); err == nil {
				t.Fatal("the sub-agent wrote the main tree")
			}
			if got := w.read(filepath.Join(w.work, "a.txt")); got != "base\n" {
				t.Fatalf("the main tree's a.txt: %q", got)
			}
			branches := strings.Fields(strings.ReplaceAll(w.git("branch", "--list", "chat/*", "--format=%(refname:short)"), "*", ""))
			if len(branches) != 1 || !strings.HasPrefix(branches[0], "chat/coder-0-") {
				t.Fatalf("branches: %v", branches)
			}
			if got := w.git("show", branches[0]+":sub.txt"); got != "from the sub-agent\n" {
				t.Fatalf("the branch's sub.txt: %q", got)
			}
			reqs := srv.Requests()
			result := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Text()
			if !strings.Contains(result, "wrote sub.txt") || !strings.Contains(result, "committed on the branch "+branches[0]) || !strings.Contains(result, "sub.txt") {
				t.Fatalf("the caller was told: %q", result)
			}
		})
	}
}

// TestWorktreeNeedsARepository: --worktree outside a repository says so
// and runs nothing.
func TestWorktreeNeedsARepository(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "should not be asked"})
	cmd := command(t, srv, "--worktree", "x", "-p", "hi")
	_, stderr, code := run(t, cmd)
	if code == 0 || !strings.Contains(stderr, "not in a git repository") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Requests()), stderr)
	}
}

// TestTUIWorktreeMovesTheSession: in the REPL, /worktree feat moves the
// session into a new worktree: what the model's boxed command writes
// lands there, not in the main tree; /worktree lists it, and rm refuses
// its uncommitted work. As root and as an ordinary user.
func TestTUIWorktreeMovesTheSession(t *testing.T) {
	t.Parallel()
	needTmux(t)
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorktreeWorld(t, u)
			srv := oaitest.New(t, call("s1", "run_shell", `{"command":"pwd && echo from the worktree > w.txt"}`), oaitest.Answer{Text: "wrote w.txt"})
			term := w.term(t)
			term.startChat(srv)
			must := func(what string) {
				t.Helper()
				if !term.waitScreen(what) {
					t.Fatalf("%q never showed:\n%s", what, term.screen())
				}
			}
			tree := w.work + ".worktrees/feat"
			term.ask("/worktree feat")
			must("made the worktree feat (branch chat/feat)")
			term.ask("write a file")
			must("wrote w.txt")
			if b, err := os.ReadFile(filepath.Join(tree, "w.txt")); err != nil || string(b) != "from the worktree\n" {
				t.Fatalf("w.txt in the worktree: %q %v\n%s", b, err, term.screen())
			}
			if _, err := os.Stat(filepath.Join(w.work, "w.txt")); err == nil {
				t.Fatal("the command wrote the main tree")
			}
			term.ask("/worktree")
			must("chat/feat  0")
			term.ask("/worktree rm feat")
			must("uncommitted changes (w.txt)")
		})
	}
}

// TestServeListsWorktrees: the page of chat serve lists the repository's
// worktrees, with the session made in one.
func TestServeListsWorktrees(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git (apt-get install git)")
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "worked in feat"})
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "ok"} })
	in := command(t, srv, "--worktree", "feat", "-p", "work")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		git := exec.Command("git", append([]string{"-c", "user.name=p", "-c", "user.email=p@x"}, args...)...)
		git.Dir = in.Dir
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if stdout, stderr, code := run(t, in); code != 0 || !strings.Contains(stdout, "worked in feat") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	serve := command(t, srv)
	serve.Dir, serve.Env = in.Dir, in.Env
	s := startServeIn(t, serve)
	ctx := chromium(t, 1280, 800)
	do(t, ctx, "the panel's worktrees",
		chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS("#input")),
		chromedp.Click(chromedp.CSS("#menu")),
		until(`document.getElementById('worktrees').innerText.includes('feat · chat/feat · clean')`),
		until(`document.getElementById('worktrees').innerText.includes('work · idle')`))
}
