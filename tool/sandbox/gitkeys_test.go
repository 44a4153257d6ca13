package sandbox

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runsPrograms are the keys git-config(1) documents as running a program
// (or naming one, or reading config or hooks from elsewhere), each in the
// form git config --list prints, with a value that would do it.
var runsPrograms = map[string]string{
	"core.fsmonitor": "touch x", "core.hookspath": "/tmp/h", "core.sshcommand": "sh -c x", "core.pager": "sh",
	"core.editor": "sh", "core.askpass": "sh", "core.gitproxy": "sh", "core.worktree": "/", "core.alternaterefscommand": "sh",
	"diff.external": "sh", "diff.d.textconv": "sh", "diff.d.command": "sh", "difftool.t.cmd": "sh", "difftool.t.path": "/bin/sh",
	"merge.d.driver": "sh", "mergetool.t.cmd": "sh", "mergetool.t.path": "/bin/sh", "filter.f.clean": "sh", "filter.f.smudge": "sh",
	"filter.f.process": "sh", "credential.helper": "!sh", "credential.https://x.helper": "!sh", "gpg.program": "sh",
	"gpg.ssh.program": "sh", "gpg.openpgp.program": "sh", "gpg.x509.program": "sh", "gpg.ssh.defaultkeycommand": "sh",
	"commit.gpgsign": "true", "tag.gpgsign": "true", "push.gpgsign": "true", "log.showsignature": "true",
	"merge.verifysignatures": "true", "sequence.editor": "sh", "pager.log": "sh", "web.browser": "x", "help.browser": "x",
	"instaweb.browser": "x", "instaweb.httpd": "sh", "browser.b.cmd": "sh", "browser.b.path": "/bin/sh", "man.viewer": "x",
	"man.m.cmd": "sh", "man.m.path": "/bin/sh", "guitool.g.cmd": "sh", "imap.tunnel": "sh", "sendemail.smtpserver": "/bin/sh",
	"sendemail.tocmd": "sh", "sendemail.cccmd": "sh", "sendemail.headercmd": "sh", "sendemail.sendmailcmd": "sh",
	"sendemail.id.tocmd": "sh", "remote.o.uploadpack": "sh", "remote.o.receivepack": "sh", "remote.o.vcs": "x",
	"remote.o.url": "ext::sh -c x", "remote.o.pushurl": "ext::sh -c x", "submodule.s.url": "ext::sh -c x",
	"remote.o.proxy": "http://x", "http.proxy": "http://x", "url.ext::sh.insteadof": "https://", "url.x.pushinsteadof": "y",
	"uploadpack.packobjectshook": "sh", "include.path": "/tmp/c", "includeif.gitdir:/.path": "/tmp/c",
	"protocol.allow": "always", "protocol.ext.allow": "always", "submodule.s.update": "!sh", "alias.st": "!sh",
	"interactive.difffilter": "sh", "trailer.t.command": "sh", "trailer.t.cmd": "sh", "hook.h.command": "sh",
	"hook.h.event": "pre-commit", "diff.tool": "vimdiff", "merge.tool": "vimdiff", "safe.directory": "*",
	"gitcvs.dbdriver": "x", "core.fsmonitorhookversion": "2", "notes.rewrite.amend": "true",
	"extensions.unknown": "true", "user.signingkey": "key::ssh-ed25519 AAAA",
}

func TestGitKeysThatRunProgramsAreRefused(t *testing.T) {
	for key, value := range runsPrograms {
		if gitKeySafe(key, value) {
			t.Errorf("%s = %s runs a program, and is allowed", key, value)
		}
	}
	// Subsections keep their case; the section and key do not matter.
	for _, k := range []string{"Core.FSMonitor", "diff.MyDriver.textconv", "Trailer.Sign.Command"} {
		if gitKeySafe(k, "sh") {
			t.Errorf("%s is allowed", k)
		}
	}
	for _, ok := range [][2]string{{"user.name", "bot"}, {"remote.origin.url", "https://x/y.git"}, {"remote.origin.url", "git@host:y.git"},
		{"branch.main.remote", "origin"}, {"core.bare", "false"}, {"advice.detachedhead", "false"}, {"extensions.worktreeconfig", "true"}} {
		if !gitKeySafe(ok[0], ok[1]) {
			t.Errorf("%s = %s is refused, and git needs it for plain work", ok[0], ok[1])
		}
	}
}

// TestGitSafeKeysAgainstGitsOwnList: the allow list holds only keys git
// documents (git help --config), and of git's own list every key whose
// name says it runs something (a command, a program, a helper, an
// editor, a pager, a hook, a driver, a proxy, a tunnel, a browser,
// signing) is refused, so a key a newer git adds is never let through by
// a pattern.
func TestGitSafeKeysAgainstGitsOwnList(t *testing.T) {
	out, err := exec.Command("git", "help", "--config").Output()
	if err != nil {
		t.Skipf("git help --config: %v", err)
	}
	documented := map[string]bool{}
	for _, k := range strings.Fields(string(out)) {
		k = strings.ToLower(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(k, "*"))
		documented[k] = true
	}
	// Documented elsewhere: gitrepository-layout(5) for extensions, Git
	// for Windows, git-lfs; advice.* stands for git's advice.<name> keys.
	elsewhere := []string{"extensions.", "core.longpaths", "lfs.repositoryformatversion", "advice.*"}
	for _, k := range gitSafeKeys {
		if !documented[k] && !slices.ContainsFunc(elsewhere, func(e string) bool { return strings.HasPrefix(k, e) }) {
			t.Errorf("%s is allowed and git does not document it", k)
		}
	}
	programish := regexp.MustCompile(`(?i)(command|cmd|program|helper|editor|pager|hook|driver|proxy|tunnel|browser|askpass|textconv|smudge|gpgsign|signature|signingkey|external|sshcommand|worktree$|\.path$|process$|\.clean$|\.allow$|insteadof)`)
	for k := range documented {
		if !programish.MatchString(k) || strings.HasPrefix(k, "advice.") { // advice.* are booleans that silence a hint
			continue
		}
		sample := strings.ReplaceAll(k, "*", "x")
		if gitKeySafe(sample, "sh -c x") {
			t.Errorf("git documents %s, which runs or names a program, and it is allowed", k)
		}
	}
}
