package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chatrepl/chat/tool"
)

// tree10k is a working directory of 10,000 files in 100 folders, with a
// .gitignore and an ignored build folder, made once per run.
func tree10k(b *testing.B) string {
	dir := b.TempDir()
	_ = os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n*.o\n"), 0o644)
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", d/10), fmt.Sprintf("mod%02d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file_%03d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	_ = os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	return dir
}

// BenchmarkMentionList is the time from typing @ to the list on screen
// over a 10,000-file tree: cold (the first @ lists the tree) and warm
// (narrowing an open list by one more letter). Goal: ≤ 50 ms cold.
func BenchmarkMentionList(b *testing.B) {
	dir := tree10k(b)
	files := func(depth int) ([]string, error) { return tool.ProjectFiles(dir, 100_000, depth) }
	b.Run("first-keystroke", func(b *testing.B) {
		for b.Loop() {
			f := newFixture(&testing.T{})
			f.app.files, f.app.workdir = files, "/w"
			showList(b, f, "@", true)
		}
	})
	b.Run("whole-tree", func(b *testing.B) {
		for b.Loop() {
			f := newFixture(&testing.T{})
			f.app.files, f.app.workdir = files, "/w"
			showList(b, f, "@", false)
		}
	})
	b.Run("narrowing", func(b *testing.B) {
		f := newFixture(&testing.T{})
		f.app.files, f.app.workdir = files, "/w"
		showList(b, f, "@", false)
		for b.Loop() {
			f.m.input.set("look at @mod42fil")
			f.m.Update(tea.KeyPressMsg{Code: 'e', Text: "e"})
			if !strings.Contains(f.m.View().Content, "file_") {
				b.Fatal("no list")
			}
		}
	})
}

// showList puts text in the input as a keystroke would, runs the listing
// it starts (the other commands of a keystroke, the cursor's blink, are
// not the list's): the top level only (first) or the whole tree, and
// checks the list is drawn.
func showList(b *testing.B, f *fixture, text string, first bool) {
	f.m.input.set(text)
	cmds := f.m.refreshMentions()().(tea.BatchMsg)
	if first {
		cmds = cmds[:1]
	} else {
		cmds = cmds[1:]
	}
	f.m.Update(cmds[0]())
	if !strings.Contains(f.m.View().Content, "pkg0") {
		b.Fatalf("no list:\n%s", f.m.View().Content)
	}
}
