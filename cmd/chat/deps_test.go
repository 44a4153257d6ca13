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
