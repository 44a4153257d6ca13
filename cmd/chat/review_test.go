package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// gitRepo makes dir a repository with one commit of calc.go, then changes
// calc.go and adds new.go, as u.
func gitRepo(t *testing.T, u asuser.User, dir string) {
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "safe.directory=*", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	writeFor(t, u, dir, "calc.go", "package calc\n\nfunc Div(a, b int) int { return a / b }\n")
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "first")
	writeFor(t, u, dir, "calc.go", "package calc\n\nfunc Div(a, b int) int { return a * b }\n")
	writeFor(t, u, dir, "new.go", "package calc\n\nvar Debug = true\n")
	asuser.Give(t, u, dir)
}

// TestReview: chat review sends the working tree's changes (the changed
// file and the new one), offers no tool that writes, runs commands in the
// read-only box (a command that tries to write is refused by it), and
// prints the findings most severe first, or as JSON objects. As root and
// as an ordinary user.
func TestReview(t *testing.T) {
	t.Parallel()
	findings := `{"findings":[` +
		`{"severity":"low","file":"new.go","line":3,"title":"a debug flag left on"},` +
		`{"severity":"critical","file":"calc.go","line":3,"title":"Div multiplies","detail":"a * b should be a / b"}]}`
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			srv := oaitest.New(t,
				oaitest.Answer{Calls: []oaitest.Call{{ID: "w", Name: "run_shell", Args: `{"command":"echo fixed > calc.go; echo x > pwned.txt"}`}}},
				oaitest.Answer{Text: findings},
				oaitest.Answer{Text: findings})
			r := newUserRun(t, u, srv)
			gitRepo(t, u, r.dir)
			out, errOut, code := r.run("review", "--max-steps", "5")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			req := srv.Requests()[0]
			sent := lastUserOf(req)
			for _, want := range []string{"Review the changes below", "-func Div(a, b int) int { return a / b }", "+func Div(a, b int) int { return a * b }", "+var Debug = true"} {
				if !strings.Contains(sent, want) {
					t.Fatalf("the review request lacks %q:\n%s", want, sent)
				}
			}
			names := strings.Join(req.ToolNames(), " ")
			if strings.Contains(names, "write_file") || strings.Contains(names, "edit_file") || !strings.Contains(names, "read_file") {
				t.Fatalf("offered: %s", names)
			}
			if b, _ := os.ReadFile(filepath.Join(r.dir, "calc.go")); strings.Contains(string(b), "fixed") {
				t.Fatal("a command of the review changed calc.go")
			}
			if _, err := os.Stat(filepath.Join(r.dir, "pwned.txt")); err == nil {
				t.Fatal("a command of the review wrote a file")
			}
			if got, _ := toolResult(srv, "w"); !kernelRefusedWrite(got) {
				t.Fatalf("the command's result: %q", got)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 3 || !strings.HasPrefix(lines[0], "critical calc.go:3  Div multiplies") || !strings.Contains(lines[1], "a * b should be a / b") || !strings.HasPrefix(lines[2], "low      new.go:3  a debug flag left on") {
				t.Fatalf("the findings:\n%s", out)
			}
			out, errOut, code = r.run("review", "--json")
			if code != 0 {
				t.Fatalf("--json: exit %d\n%s\n%s", code, out, errOut)
			}
			var first struct {
				Severity, File, Title string
				Line                  int
			}
			if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first.Severity != "critical" || first.File != "calc.go" || first.Line != 3 {
				t.Fatalf("--json: %v %q", err, out)
			}
		})
	}
}

// TestReviewWithoutChanges: nothing to review is said, and no request made.
func TestReviewWithoutChanges(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	r := newUserRun(t, asuser.Current(), srv)
	_, errOut, code := r.run("review")
	if code == 0 || !strings.Contains(errOut, "not in a git repository") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Requests()), errOut)
	}
}

// TestTUIReview: /review in the REPL sends the changes in a turn that
// offers no writing tool, and the next turn offers them again.
func TestTUIReview(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "critical calc.go:3: Div multiplies"}, oaitest.Answer{Text: "the answer after the review"})
	tm := startTermOpts(t, srv, termOpts{setup: func(dir string) { gitRepo(t, asuser.Current(), dir) }})
	tm.ask("/review")
	tm.waitFor("reviewing 2 changed files", time.Minute)
	tm.waitFor("Div multiplies", time.Minute)
	tm.waitIdle(time.Minute)
	first := srv.Requests()[0]
	if !strings.Contains(lastUserOf(first), "+func Div(a, b int) int { return a * b }") || strings.Contains(strings.Join(first.ToolNames(), " "), "write_file") {
		t.Fatalf("the review request offered %v:\n%s", first.ToolNames(), lastUserOf(first))
	}
	if strings.Contains(tm.screen(), "plan mode") {
		t.Fatalf("the review's limits outlived it:\n%s", tm.screen())
	}
	tm.ask("go on")
	// The answer's own words: "next" alone is in the status bar ("next
	// ~1.2k"), and at load 38 it was waited for before the second
	// request was made.
	tm.waitFor("the answer after the review", time.Minute)
	if names := strings.Join(srv.Requests()[1].ToolNames(), " "); !strings.Contains(names, "write_file") {
		t.Fatalf("after the review: %s", names)
	}
}

// TestReviewPromptIsAPromptFile: a prompt file named review stands in for
// the reviewing prompt.
func TestReviewPromptIsAPromptFile(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: `{"findings":[]}`})
	r := newUserRun(t, asuser.Current(), srv)
	gitRepo(t, asuser.Current(), r.dir)
	writeFor(t, asuser.Current(), r.home, ".config/chat/commands/review.md", "Only look for typos, against [$ARGUMENTS].\n")
	out, errOut, code := r.run("review")
	if code != 0 || !strings.Contains(out, "no findings") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if sent := lastUserOf(srv.Requests()[0]); !strings.HasPrefix(sent, "Only look for typos, against [].") || strings.Contains(sent, "senior engineer") {
		t.Fatalf("sent:\n%.300s", sent)
	}
}
