package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadOrderAndFallback(t *testing.T) {
	repo := t.TempDir()
	_ = os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	wd := filepath.Join(repo, "svc", "api")
	personal := filepath.Join(t.TempDir(), "AGENTS.md")
	write(t, personal, "PERSONAL")
	write(t, filepath.Join(repo, "AGENTS.md"), "ROOT-AGENTS")
	write(t, filepath.Join(repo, "CLAUDE.md"), "ROOT-CLAUDE") // AGENTS.md wins in its folder
	write(t, filepath.Join(repo, "svc", "CLAUDE.md"), "SVC-CLAUDE")
	write(t, filepath.Join(wd, "AGENTS.md"), "API-AGENTS")
	write(t, filepath.Join(filepath.Dir(repo), "AGENTS.md"), "ABOVE-THE-REPO") // outside: never read
	in := Load(wd, personal)
	var order []string
	for _, w := range []string{"PERSONAL", "ROOT-AGENTS", "SVC-CLAUDE", "API-AGENTS"} {
		order = append(order, w)
		if !strings.Contains(in.Text, w) {
			t.Fatalf("%s missing from\n%s", w, in.Text)
		}
	}
	for i := 1; i < len(order); i++ {
		if strings.Index(in.Text, order[i-1]) > strings.Index(in.Text, order[i]) {
			t.Fatalf("%s comes after %s", order[i-1], order[i])
		}
	}
	if strings.Contains(in.Text, "ROOT-CLAUDE") || strings.Contains(in.Text, "ABOVE-THE-REPO") {
		t.Fatalf("read what it should not:\n%s", in.Text)
	}
	if len(in.Sources) != 4 || in.Cut {
		t.Fatalf("sources %v cut %v", in.Sources, in.Cut)
	}
}

func TestLoadWithoutRepositoryReadsOnlyTheWorkingDirectory(t *testing.T) {
	parent := t.TempDir()
	wd := filepath.Join(parent, "here")
	write(t, filepath.Join(parent, "AGENTS.md"), "PARENT")
	write(t, filepath.Join(wd, "AGENTS.md"), "HERE")
	in := Load(wd, "")
	if !strings.Contains(in.Text, "HERE") || strings.Contains(in.Text, "PARENT") {
		t.Fatalf("got\n%s", in.Text)
	}
}

func TestLoadIsCapped(t *testing.T) {
	wd := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	write(t, filepath.Join(wd, "AGENTS.md"), strings.Repeat(line, 1000)) // 100 KB
	in := Load(wd, "")
	if !in.Cut || len(in.Text) > MaxInstructions+1024 || in.Sources[0].Bytes > MaxInstructions {
		t.Fatalf("cut %v, %d bytes", in.Cut, len(in.Text))
	}
	if !strings.HasSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(in.Text), "</instructions>")), "x") {
		t.Fatal("cut inside a line")
	}
}

func TestNothingToRead(t *testing.T) {
	if in := Load(t.TempDir(), filepath.Join(t.TempDir(), "missing")); in.Text != "" || len(in.Sources) != 0 {
		t.Fatalf("%+v", in)
	}
}
