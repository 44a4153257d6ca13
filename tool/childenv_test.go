package tool

import (
	"slices"
	"testing"
)

// TestChildEnvDropsPasswordsInValues: a URL with a password reaches no
// child under any name; one without, or a plain value, does.
func TestChildEnvDropsPasswordsInValues(t *testing.T) {
	env := []string{
		"DATABASE_URL=postgres://app:hunter2@db:5432/app",
		"HTTPS_PROXY=http://me:pw@proxy:3128",
		"ALL_PROXY=socks5://proxy:1080",
		"REDIS=redis://:secretpass@cache:6379/0",
		"MIRRORS=https://a.example, https://u:p@b.example",
		"HOME=/home/me",
		"DOCS=https://user@example.com/docs",
	}
	got := ChildEnv(env, nil, nil)
	want := []string{"ALL_PROXY=socks5://proxy:1080", "HOME=/home/me", "DOCS=https://user@example.com/docs"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if kept := ChildEnv(env[:1], []string{"DATABASE_URL"}, nil); len(kept) != 1 {
		t.Fatalf("env_keep did not keep DATABASE_URL: %q", kept)
	}
}
