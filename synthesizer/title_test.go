package synthesizer

import (
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/oaitest"
)

func TestTitlePromptIsToldApart(t *testing.T) {
	if !strings.HasPrefix(TitlePrompt, oaitest.TitleMarker) {
		t.Fatalf("the test server would not tell a title request apart: %q", TitlePrompt)
	}
}

func TestCleanTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Waiting for goroutines":                       "Waiting for goroutines",
		"Title: \"Rotating logs with logrotate.\"\n":   "Rotating logs with logrotate",
		"**Fixing the flaky test**\nBecause the user…": "Fixing the flaky test",
		"  «Déployer   sur\tKubernetes» ":              "Déployer sur Kubernetes",
		"\x1b[31mred\x1b[0m title":                     "[31mred [0m title",
		"...":                                          "",
	} {
		if got := cleanTitle(in); got != want {
			t.Errorf("cleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanTitle(strings.Repeat("long ", 40)); len(got) > maxTitle || !strings.HasSuffix(got, "long…") {
		t.Errorf("a long title is cut to %q", got)
	}
}
