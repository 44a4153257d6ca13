package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/chatrepl/chat/internal/nofollow"
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
// working directory: taken before the command, Undo after it. It reads
// and writes through folders opened without following links: Undo runs
// outside the box, and a command may have left a link where a folder of
// a repository was.
type RepoGuard struct {
	workdir string
	found   []string             // the protected paths there were
	repos   map[string]repoState // by git directory, relative to workdir
	others  []string             // the other protected paths (.chat, .envrc) there were
}

type repoState struct {
	config []byte
	// hooks are name → content for the hooks that run (not *.sample);
	// a link's content is "link:" and its target.
	hooks map[string]string
	// links are the entries of the git directory git would follow that
	// are links: config, hooks.
	links []string
}

// GuardRepos records the repositories under workdir as they are.
func GuardRepos(workdir string) *RepoGuard {
	g := &RepoGuard{workdir: workdir, found: FindProtected(workdir), repos: map[string]repoState{}}
	root, err := os.Open(workdir)
	if err != nil {
		return g
	}
	defer root.Close()
	for _, gitdir := range gitDirs(int(root.Fd()), workdir, g.found) {
		g.repos[gitdir] = readRepo(int(root.Fd()), gitdir)
	}
	for _, p := range g.found {
		if filepath.Base(p) != ".git" || isLink(p) {
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
	rootDir, err := os.Open(g.workdir)
	if err != nil {
		return nil
	}
	defer rootDir.Close()
	root := int(rootDir.Fd())
	var undone []string
	found := FindProtected(g.workdir)
	// A protected path a command made (.chat/hooks.toml, an .envrc, a
	// .git that is a link) is removed: what is there runs outside any box.
	for _, p := range found {
		if (filepath.Base(p) != ".git" || isLink(p)) && !slices.Contains(g.others, p) {
			if removeUnder(root, g.workdir, p) == nil {
				rel, _ := filepath.Rel(g.workdir, p)
				undone = append(undone, rel)
			}
		}
	}
	for _, gitdir := range gitDirs(root, g.workdir, found) {
		undone = append(undone, g.undoRepo(root, gitdir)...)
	}
	return undone
}

// undoRepo puts back the hooks and the config of one repository, and
// removes a config or hooks that became a link.
func (g *RepoGuard) undoRepo(root int, gitdir string) []string {
	before, existed := g.repos[gitdir]
	now := readRepo(root, gitdir)
	dir, err := nofollow.OpenDir(root, gitdir)
	if err != nil {
		return nil
	}
	defer unix.Close(dir)
	var undone []string
	for _, name := range now.links {
		if !slices.Contains(before.links, name) && nofollow.Remove(dir, name) == nil {
			undone = append(undone, "the link "+filepath.Join(gitdir, name))
		}
	}
	if hooks, err := nofollow.OpenDir(dir, "hooks"); err == nil {
		for name, content := range now.hooks {
			old, ok := before.hooks[name]
			if ok && old == content {
				continue
			}
			switch target, link := strings.CutPrefix(old, "link:"); {
			case !ok:
				_ = nofollow.Remove(hooks, name)
			case link:
				_ = nofollow.Symlink(hooks, name, target)
			default:
				_ = nofollow.WriteFile(hooks, name, []byte(old), 0o755)
			}
			undone = append(undone, "the hook "+filepath.Join(gitdir, "hooks", name))
		}
		unix.Close(hooks)
	}
	had := dangerousKeys(before.config)
	added := slices.DeleteFunc(dangerousKeys(now.config), func(k string) bool { return slices.Contains(had, k) })
	if len(added) == 0 {
		return undone
	}
	if existed && before.config != nil {
		_ = nofollow.WriteFile(dir, "config", before.config, 0o644)
	} else {
		_ = nofollow.WriteFile(dir, "config", stripKeys(now.config, added), 0o644)
	}
	for _, k := range added {
		undone = append(undone, "the setting "+k+" in "+filepath.Join(gitdir, "config"))
	}
	return undone
}

// gitDirs are the git directories of the repositories under workdir,
// relative to it: every .git folder, and where a .git file points inside
// workdir.
func gitDirs(root int, workdir string, protected []string) []string {
	var out []string
	for _, p := range protected {
		if filepath.Base(p) != ".git" {
			continue
		}
		rel, err := filepath.Rel(workdir, p)
		if err != nil {
			continue
		}
		dir, name, err := nofollow.Parent(root, filepath.ToSlash(rel), false)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		err = unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		switch {
		case err != nil:
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			out = append(out, filepath.ToSlash(rel))
		case st.Mode&unix.S_IFMT == unix.S_IFREG:
			b, _ := nofollow.ReadFile(dir, name, 4096)
			if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
				d = strings.TrimSpace(d)
				if !filepath.IsAbs(d) {
					d = filepath.Join(filepath.Dir(p), d)
				}
				if r, err := filepath.Rel(workdir, d); err == nil && within(workdir, d) {
					out = append(out, filepath.ToSlash(r))
				}
			}
		}
		unix.Close(dir)
	}
	return out
}

// readRepo reads what of a git directory makes git run programs.
func readRepo(root int, gitdir string) repoState {
	s := repoState{hooks: map[string]string{}}
	dir, err := nofollow.OpenDir(root, gitdir)
	if err != nil {
		return s
	}
	defer unix.Close(dir)
	for _, name := range []string{"config", "hooks"} {
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			s.links = append(s.links, name)
		}
	}
	s.config, _ = nofollow.ReadFile(dir, "config", 1<<20)
	hooks, err := nofollow.OpenDir(dir, "hooks")
	if err != nil {
		return s
	}
	f := os.NewFile(uintptr(hooks), "hooks")
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".sample") || e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := nofollow.Readlink(hooks, name)
			s.hooks[name] = "link:" + target
		default:
			b, _ := nofollow.ReadFile(hooks, name, 1<<20)
			s.hooks[name] = string(b)
		}
	}
	return s
}

// removeUnder removes the protected path p under workdir (a folder with
// what it holds), never through a link.
func removeUnder(root int, workdir, p string) error {
	rel, err := filepath.Rel(workdir, p)
	if err != nil {
		return err
	}
	dir, name, err := nofollow.Parent(root, filepath.ToSlash(rel), false)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	return nofollow.RemoveAll(dir, name)
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
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
