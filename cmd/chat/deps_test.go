package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoGob: nothing chat links imports encoding/gob, go-git's
// config reader or go-billy, whose package initialisation every run paid
// for functions chat never calls (third_party/go-git and
// third_party/go-sdk say why they are gone).
func TestBinaryLinksNoGob(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "encoding/gob" || strings.HasPrefix(p, "github.com/go-git/gcfg") || strings.HasPrefix(p, "github.com/go-git/go-billy") {
			t.Errorf("chat links %s", p)
		}
	}
}

// TestPagesAreMappedBeforeMostInitialisation: internal/prefault saves the
// faults of what is initialised after it, so it must come early, before
// the packages that wait for unicode's tables (importing strings would
// put it sixty packages later).
func TestPagesAreMappedBeforeMostInitialisation(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(chatBin, "version")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatal(err, string(out))
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i + 1
		}
	}
	prefault, ok := order["github.com/chatrepl/chat/internal/prefault"]
	if !ok {
		t.Fatalf("chat does not initialise internal/prefault:\n%s", out)
	}
	if unicode := order["unicode"]; unicode == 0 || prefault > unicode {
		t.Errorf("internal/prefault is initialised %dth, unicode %dth", prefault, unicode)
	}
}
