package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A command may make a repository (git init, cargo new), but none may
// come out of the box carrying what makes git run a program: a hook, or
// one of these config keys. Each entry is section.key or, with a
// subsection of any name, section.*.key; "alias" counts only for values
// that run a shell (!…).
var gitRunsPrograms = []string{
	"core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager", "core.editor", "core.askpass",
	"core.gitproxy", "core.worktree", "diff.external", "diff.*.textconv", "diff.*.command", "merge.*.driver",
	"filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper",
	"gpg.program", "gpg.*.program", "sequence.editor", "pager.*", "web.browser", "browser.*.cmd", "browser.*.path",
	"man.*.cmd", "man.*.path", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd",
	"remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs", "uploadpack.packobjectshook", "include.path",
	"includeif.*.path", "protocol.allow", "protocol.*.allow", "submodule.*.update", "difftool.*.cmd",
	"mergetool.*.cmd", "interactive.difffilter", "color.pager", "alias",
}

// RepoGuard is what a command must not add to the repositories under a
// working directory: taken before the command, Undo after it.
type RepoGuard struct {
	workdir string
	found   []string             // the protected paths there were
	repos   map[string]repoState // by git directory
	others  []string             // the other protected paths (.chat, .envrc) there were
}

type repoState struct {
	config []byte
	hooks  map[string][]byte // name → content, for hooks that run (not *.sample)
}

// GuardRepos records the repositories under workdir as they are.
func GuardRepos(workdir string) *RepoGuard {
	g := &RepoGuard{workdir: workdir, found: FindProtected(workdir), repos: map[string]repoState{}}
	for _, gitdir := range gitDirs(workdir, g.found) {
		g.repos[gitdir] = readRepo(gitdir)
	}
	for _, p := range g.found {
		if filepath.Base(p) != ".git" {
			g.others = append(g.others, p)
		}
	}
	return g
}

// Protected are the protected paths found when g was taken.
func (g *RepoGuard) Protected() []string { return g.found }

// Undo removes what made git run a program that was not there when g was
// taken, and says what it undid (nothing: nil).
func (g *RepoGuard) Undo() []string {
	var undone []string
	found := FindProtected(g.workdir)
	// A protected path a command made (.chat/hooks.toml, an .envrc) is
	// removed: what is there runs outside any box.
	for _, p := range found {
		if filepath.Base(p) != ".git" && !slices.Contains(g.others, p) {
			if os.RemoveAll(p) == nil {
				rel, _ := filepath.Rel(g.workdir, p)
				undone = append(undone, rel)
			}
		}
	}
	for _, gitdir := range gitDirs(g.workdir, found) {
		before, existed := g.repos[gitdir]
		now := readRepo(gitdir)
		rel, _ := filepath.Rel(g.workdir, gitdir)
		for name, content := range now.hooks {
			if old, ok := before.hooks[name]; ok && bytes.Equal(old, content) {
				continue
			}
			p := filepath.Join(gitdir, "hooks", name)
			if old, ok := before.hooks[name]; ok {
				_ = os.WriteFile(p, old, 0o755)
			} else {
				_ = os.Remove(p)
			}
			undone = append(undone, "the hook "+filepath.Join(rel, "hooks", name))
		}
		had := dangerousKeys(before.config)
		added := slices.DeleteFunc(dangerousKeys(now.config), func(k string) bool { return slices.Contains(had, k) })
		if len(added) == 0 {
			continue
		}
		cfg := filepath.Join(gitdir, "config")
		if existed && before.config != nil {
			_ = os.WriteFile(cfg, before.config, 0o644)
		} else {
			_ = os.WriteFile(cfg, stripKeys(now.config, added), 0o644)
		}
		for _, k := range added {
			undone = append(undone, "the setting "+k+" in "+filepath.Join(rel, "config"))
		}
	}
	return undone
}

// gitDirs are the git directories of the repositories under workdir:
// every .git folder, and where a .git file points inside workdir.
func gitDirs(workdir string, protected []string) []string {
	var out []string
	for _, p := range protected {
		if filepath.Base(p) != ".git" {
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			out = append(out, p)
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
				d = strings.TrimSpace(d)
				if !filepath.IsAbs(d) {
					d = filepath.Join(filepath.Dir(p), d)
				}
				if within(workdir, d) {
					out = append(out, filepath.Clean(d))
				}
			}
		}
	}
	return out
}

func readRepo(gitdir string) repoState {
	s := repoState{hooks: map[string][]byte{}}
	s.config, _ = os.ReadFile(filepath.Join(gitdir, "config"))
	entries, _ := os.ReadDir(filepath.Join(gitdir, "hooks"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sample") || e.IsDir() {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(gitdir, "hooks", e.Name()))
		s.hooks[e.Name()] = b
	}
	return s
}

// configLine is one key of a git config file, with its section.
type configLine struct {
	line int
	key  string // section[.subsection].key, lowercased but the subsection
	val  string
}

// parseConfig reads the keys of a git config file, enough to find the
// dangerous ones: "[section]" or "[section "sub"]" headers (a key may
// follow on the same line), "key = value" and bare "key".
func parseConfig(b []byte) []configLine {
	var out []configLine
	section, sub := "", ""
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.Index(line, "]")
			if end < 0 {
				continue
			}
			head := line[1:end]
			line = strings.TrimSpace(line[end+1:])
			section, sub = head, ""
			if name, rest, ok := strings.Cut(head, " "); ok {
				section, sub = name, strings.Trim(strings.TrimSpace(rest), `"`)
			} else if name, rest, ok := strings.Cut(head, "."); ok { // [section.sub], the old form
				section, sub = name, rest
			}
			section = strings.ToLower(section)
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		full := section + "." + k
		if sub != "" {
			full = section + "." + sub + "." + k
		}
		out = append(out, configLine{line: i, key: full, val: strings.TrimSpace(v)})
	}
	return out
}

// dangerousKeys are the keys of a config that make git run a program, as
// "key = value" so that a changed value counts as new.
func dangerousKeys(b []byte) []string {
	var out []string
	for _, l := range parseConfig(b) {
		if runsProgram(l) {
			out = append(out, l.key+" = "+l.val)
		}
	}
	return out
}

func runsProgram(l configLine) bool {
	parts := strings.Split(l.key, ".")
	section, key := parts[0], parts[len(parts)-1]
	if section == "alias" {
		return strings.HasPrefix(strings.Trim(l.val, `"`), "!")
	}
	for _, d := range gitRunsPrograms {
		dp := strings.Split(d, ".")
		switch {
		case dp[0] != section:
		case len(dp) == 2 && dp[1] == "*" && len(parts) >= 2:
			return true // pager.<cmd>
		case len(dp) == 2 && len(parts) == 2 && dp[1] == key:
			return true
		case len(dp) == 3 && len(parts) >= 3 && dp[2] == key:
			return true
		}
	}
	return false
}

// stripKeys drops the lines that set the given keys.
func stripKeys(b []byte, keys []string) []byte {
	drop := map[int]bool{}
	for _, l := range parseConfig(b) {
		if slices.Contains(keys, l.key+" = "+l.val) {
			drop[l.line] = true
		}
	}
	lines := strings.Split(string(b), "\n")
	var kept []string
	for i, line := range lines {
		if !drop[i] {
			kept = append(kept, line)
		} else if strings.HasPrefix(strings.TrimSpace(line), "[") {
			kept = append(kept, line[:strings.Index(line, "]")+1]) // keep the header, drop the key after it
		}
	}
	return []byte(strings.Join(kept, "\n"))
}
