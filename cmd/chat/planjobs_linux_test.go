//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// TestPlanModeHoldsForRunningJobs: a job started before plan mode writes
// a line every 100 ms; entering plan mode (/plan) stops it, so the file
// does not grow while the REPL says plan mode, and shift+tab (leaving
// it) lets it go on. As root and as an ordinary user, with bubblewrap and
// with chat's own namespaces.
func TestPlanModeHoldsForRunningJobs(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bwraps := boxEngines(t)
	for _, u := range asuser.Both(t) {
		for name, bwrap := range bwraps {
			t.Run(fmt.Sprintf("%s/%s", u.Name, name), func(t *testing.T) {
				t.Parallel()
				w := newGitWorld(t, u, bwrap)
				term := w.term(t)
				srv := oaitest.New(t,
					bgCall("j1", "while true; do echo tick >> ticks.txt; sleep 0.1; done", true),
					oaitest.Answer{Text: "started it"})
				term.startChat(srv)
				term.ask("start a job")
				if !term.waitScreen("started it") {
					t.Fatalf("the turn did not end:\n%s", term.screen())
				}
				ticks := filepath.Join(w.work, "ticks.txt")
				size := func() int64 {
					fi, err := os.Stat(ticks)
					if err != nil {
						return 0
					}
					return fi.Size()
				}
				for deadline := time.Now().Add(60 * time.Second); size() == 0; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the job wrote nothing:\n%s", term.screen())
					}
				}
				term.ask("/plan")
				if !term.waitScreen("stopped until plan mode ends") {
					t.Fatalf("plan mode did not say it stopped the job:\n%s", term.screen())
				}
				// Stopped: ten of its ticks go by without a line.
				held := size()
				time.Sleep(time.Second)
				if grew := size(); grew != held {
					t.Fatalf("the job wrote in plan mode: %d → %d bytes", held, grew)
				}
				term.keys("BTab") // shift+tab leaves plan mode
				if !term.waitScreen("continued") {
					t.Fatalf("leaving plan mode did not say the job continued:\n%s", term.screen())
				}
				for deadline := time.Now().Add(60 * time.Second); size() == held; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the job did not go on after plan mode:\n%s", term.screen())
					}
				}
			})
		}
	}
}
