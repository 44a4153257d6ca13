package tui

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEListsEverySlashCommand: the README's list of slash commands
// names every command /help does.
func TestREADMEListsEverySlashCommand(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "Slash commands (`/help` lists them")
	if start < 0 {
		t.Fatal("the README has no list of slash commands")
	}
	list := readme[start:]
	list = list[:strings.Index(list, "\n\n")]
	for _, c := range commands {
		if !strings.Contains(list, "`"+c.name) {
			t.Errorf("the README's list leaves out %s", c.name)
		}
	}
}
