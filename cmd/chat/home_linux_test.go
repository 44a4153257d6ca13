package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// homeSecrets are credential files that no fixed list of chat's names:
// with HOME hidden, none is readable in the box.
var homeSecrets = []string{
	".m2/settings.xml", ".gradle/gradle.properties", ".s3cfg", ".gem/credentials",
	".config/Code/User/globalStorage/state.vscdb", ".terraformrc", ".boto", ".composer/auth.json",
	".config/configstore/firebase-tools.json", ".config/doctl/config.yaml", ".pip/pip.conf", ".yarnrc",
	".bundle/config", ".my.cnf", ".sentryclirc", ".config/netlify/config.json", ".cargo/credentials.toml",
	".local/share/secret-notes.txt",
}

// TestHomeIsHiddenButItsTools: in the box the person's home shows only
// its toolchains: 18 credential files are unreadable (and a search of
// home finds none), while a tool installed under ~/.local/bin and a
// pyenv-style shim still run; /etc/shadow reads empty, root's box too.
// As root and as an ordinary user, with and without bubblewrap.
func TestHomeIsHiddenButItsTools(t *testing.T) {
	t.Parallel()
	eachWorld(t, func(t *testing.T, u asuser.User, bwrap string) {
		w := netWorld(t, u, bwrap, "")
		write := func(rel, content string, mode os.FileMode) {
			p := filepath.Join(w.home, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), mode); err != nil {
				t.Fatal(err)
			}
		}
		// Unique to this world: other tests' homes under /var/tmp are
		// not this person's HOME, and the box may read them.
		mark := "HOME-SECRET-" + filepath.Base(w.base)
		for i, rel := range homeSecrets {
			write(rel, fmt.Sprintf("token = %s-%d\n", mark, i), 0o600)
		}
		write(".local/bin/mytool", "#!/bin/sh\necho MYTOOL-RAN\n", 0o755)
		write(".pyenv/versions/3.99/bin/fakepy", "#!/bin/sh\necho SHIM-RAN \"$@\"\n", 0o755)
		write(".pyenv/shims/fakepy", "#!/bin/sh\nexec \"$HOME/.pyenv/versions/3.99/bin/fakepy\" \"$@\"\n", 0o755)
		asuser.Give(t, u, w.home)
		var reads []string
		for _, rel := range homeSecrets {
			reads = append(reads, "cat ~/"+rel)
		}
		lines := []string{
			strings.Join(reads, "; ") + "; echo READ-DONE",
			"grep -rs " + mark + " ~ /var/tmp 2>/dev/null | grep -v ^Binary | head; echo SEARCH-DONE",
			"mytool; fakepy --version",
			"echo SHADOW-BYTES=$(cat /etc/shadow 2>/dev/null | wc -c)",
		}
		srv := oaitest.New(t)
		srv.SetFallback(shellCalls(lines, nil))
		cmd := w.as(exec.Command(w.bin, "-p", "go"))
		cmd.Dir = w.work
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret")
		for i, kv := range cmd.Env {
			if p, ok := strings.CutPrefix(kv, "PATH="); ok {
				cmd.Env[i] = "PATH=" + w.home + "/.local/bin:" + w.home + "/.pyenv/shims:" + p
			}
		}
		stdout, stderr, _ := run(t, cmd)
		if !strings.Contains(stdout, "done") {
			t.Fatalf("chat did not answer:\n%s\n%s", stdout, stderr)
		}
		told := allResults(srv)
		if strings.Contains(told, mark) {
			t.Errorf("a credential file in HOME was read in the box:\n%s", told)
		}
		for _, want := range []string{"READ-DONE", "SEARCH-DONE", "MYTOOL-RAN", "SHIM-RAN --version", "SHADOW-BYTES=0"} {
			if !strings.Contains(told, want) {
				t.Errorf("no %s:\n%s", want, told)
			}
		}
	})
}
