package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

func writeProjectSkill(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, ".chat", "skills", "release")
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(p, "SKILL.md"), []byte("---\nname: release\ndescription: How to cut a release of this project.\n---\nRun make test, then tag vX.Y.Z.\n"), 0o600)
}

// skillServer plays a model that loads the release skill when asked to
// release, then follows it.
func skillServer(t *testing.T) *oaitest.Server {
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return oaitest.Answer{Text: "Following the skill: " + strings.SplitN(strings.SplitN(last.Text(), "\n", 2)[1], "\n", 2)[0]}
		}
		if strings.Contains(req.Messages[0].Text(), "- release: How to cut a release") {
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "k1", Name: "skill", Args: `{"name":"release"}`}}}
		}
		return oaitest.Answer{Text: "no skill was advertised"}
	})
	return srv
}

// TestSkillAdvertisedAndLoaded: a skill in the project's .chat/skills is
// advertised in the system prompt, and the model loads its body with the
// skill tool (no approval needed), in print mode and in the REPL, where
// /skills lists it.
func TestSkillAdvertisedAndLoaded(t *testing.T) {
	t.Parallel()
	srv := skillServer(t)
	home, dir := t.TempDir(), t.TempDir()
	writeProjectSkill(t, dir)
	out, errOut, code := run(t, inHome(t, command(t, srv, "-p", "cut a release"), home, dir))
	if code != 0 || !strings.Contains(out, "Following the skill: Run make test, then tag vX.Y.Z.") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if sys := srv.Requests()[0].Messages[0].Text(); !strings.Contains(sys, "<available_skills>") {
		t.Fatalf("system prompt %q", sys)
	}

	tm := startTermOpts(t, srv, termOpts{setup: func(dir string) { writeProjectSkill(t, dir) }})
	tm.ask("/skills")
	tm.waitFor("How to cut a release of this project.", 5*time.Second)
	tm.ask("cut a release")
	tm.waitFor("Following the skill: Run make test", 10*time.Second)
}
