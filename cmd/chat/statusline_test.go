package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// statusScript checks the JSON a status line command gets (Claude Code's
// fields and chat's) and prints a line made of it; BAD and what was
// missing when a field is not there.
const statusScript = `#!/usr/bin/perl
use strict; use JSON::PP;
local $/; my $in = decode_json(<STDIN>);
my @missing;
for my $path (qw(session_id transcript_path cwd model.id model.display_name workspace.current_dir workspace.project_dir version cost.total_cost_usd chat.context.used chat.context.window chat.steps.used chat.steps.max chat.plan_mode chat.jobs chat.sandbox)) {
  my $v = $in; for my $k (split /\./, $path) { if (ref $v eq 'HASH' && exists $v->{$k}) { $v = $v->{$k} } else { push @missing, $path; last } }
}
if (@missing) { print "BAD @missing\n"; exit 1 }
printf "MYSTATUS model=%s ctx=%d/%d plan=%s dir=%s key=%s\nsecond line never shown\n", $in->{model}{id}, $in->{chat}{context}{used}, $in->{chat}{context}{window}, ($in->{chat}{plan_mode} ? "on" : "off"), ($in->{workspace}{current_dir} eq $in->{cwd} ? "same" : "differs"), ($ENV{OPENAI_API_KEY} ? "LEAKED" : "none");
`

// TestTUIStatusLine: the person's status line command gets valid JSON
// with the fields it reads, its first line stands in the status bar and
// follows what changes; a failing one is said once and the built-in
// status comes back.
func TestTUIStatusLine(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Skip("no perl (.ci/run installs it)")
	}
	script := filepath.Join(t.TempDir(), "status.pl")
	if err := os.WriteFile(script, []byte(statusScript), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t, oaitest.Answer{Text: "answered"})
	tm := startTermConfig(t, srv, "OPENAI_API_KEY=sk-test-secret", "[tui]\nstatus_line = \""+script+"\"\n")
	tm.waitFor("MYSTATUS model=scripted-model ctx=0/", time.Minute)
	// The command is the person's, but it gets no secret: as every child.
	screen := tm.waitFor("plan=off dir=same key=none", time.Minute)
	if strings.Contains(screen, "second line") || strings.Contains(screen, "BAD") {
		t.Fatalf("the status bar:\n%s", screen)
	}
	tm.ask("hello")
	tm.waitFor("answered", time.Minute)
	// The turn's usage changed what the line is told: it is run again.
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(tm.screen(), "MYSTATUS model=scripted-model ctx=") || strings.Contains(tm.screen(), "ctx=0/") {
		if time.Now().After(deadline) {
			t.Fatalf("the line did not follow the turn:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.keys("BTab") // plan mode
	tm.waitFor("plan=on", time.Minute)

	t.Run("failing", func(t *testing.T) {
		failing := startTermConfig(t, srv, "", "[tui]\nstatus_line = \"echo partial; exit 3\"\n")
		screen := failing.waitFor("the status line command failed", time.Minute)
		if !strings.Contains(screen, "scripted-model") || strings.Contains(screen, "partial") {
			t.Fatalf("the built-in status is not back:\n%s", screen)
		}
		failing.keys("BTab") // a change: the line is tried again, and fails again
		failing.waitFor("plan mode", time.Minute)
		failing.waitIdle(time.Minute)
		if n := strings.Count(failing.screen(), "the status line command failed"); n != 1 {
			t.Fatalf("the failure was said %d times:\n%s", n, failing.screen())
		}
	})
}
