package promptfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAndExpand(t *testing.T) {
	root, home, conf := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, root, ".chat/commands/fix.md", "---\ndescription: fix an issue\nargument-hint: [issue] [priority]\nmodel: fast-model\n---\nFix issue #$1 with priority $2. All: $ARGUMENTS\n")
	write(t, root, ".claude/commands/git/commit.md", "Write a commit message for the staged changes.\n")
	write(t, root, ".claude/commands/fix.md", "the shadowed one\n")
	write(t, root, ".gemini/commands/review.toml", "description = \"review the code\"\nprompt = \"Review this: {{args}}\"\n")
	write(t, root, ".gemini/commands/plain.toml", "prompt = \"Explain the build.\"\n")
	write(t, root, ".gemini/commands/broken.toml", "prompt = \n")
	write(t, conf, "hello.md", "# Say hello\nSay hello to $ARGUMENTS.\n")
	write(t, home, ".claude/commands/notes.txt", "not a command")
	cmds, shadowed, problems := Load(Dirs(root, conf, home))
	byName := map[string]Command{}
	for _, c := range cmds {
		byName[c.Name] = c
	}
	if len(cmds) != 5 || len(shadowed) != 1 || shadowed[0].Source != ".claude/commands" || len(problems) != 1 || !strings.Contains(problems[0], "broken.toml") {
		t.Fatalf("cmds %v\nshadowed %v\nproblems %v", cmds, shadowed, problems)
	}
	fix := byName["fix"]
	if fix.Description != "fix an issue" || fix.ArgumentHint != "[issue] [priority]" || fix.Model != "fast-model" || !fix.Project || fix.Source != ".chat/commands" {
		t.Fatalf("fix: %+v", fix)
	}
	if got := fix.Expand(`123 "very high"`); got != "Fix issue #123 with priority very high. All: 123 \"very high\"\n" {
		t.Fatalf("fix expands to %q", got)
	}
	if got := byName["git:commit"].Expand("mention the tests"); got != "Write a commit message for the staged changes.\n\nmention the tests" {
		t.Fatalf("git:commit expands to %q", got)
	}
	if got := byName["review"].Expand("main.go"); got != "Review this: main.go" || byName["review"].Description != "review the code" {
		t.Fatalf("review: %q %+v", got, byName["review"])
	}
	if got := byName["plain"].Expand(""); got != "Explain the build." {
		t.Fatalf("plain: %q", got)
	}
	hello := byName["hello"]
	if hello.Project || hello.Description != "Say hello" || hello.Expand("Ada") != "# Say hello\nSay hello to Ada.\n" {
		t.Fatalf("hello: %+v %q", hello, hello.Expand("Ada"))
	}
}

func TestSplit(t *testing.T) {
	got := Split(`a "b c" 'd "e"' f`)
	if strings.Join(got, "|") != `a|b c|d "e"|f` {
		t.Fatal(got)
	}
}
