package tool

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the parser cannot account for asks: the rules here make the
// analysis fail closed. Each marks a part of a line as risky (it asks
// without --yes) and, where a denied command could hide in it, opaque (it
// asks even with --yes when there is a deny list).

// Bounds on what is parsed at all: past them the line asks unread (a line
// of nested $( takes the parser time that grows with its square).
const (
	maxShellLine  = 16 << 10
	maxShellNests = 200
)

func tooBigToCheck(line string) bool {
	if len(line) > maxShellLine {
		return true
	}
	n := strings.Count(line, "$(") + strings.Count(line, "`") + strings.Count(line, "<(") + strings.Count(line, ">(") + strings.Count(line, "${")
	return n > maxShellNests
}

// node looks at the parts of a line that compute or run something without
// a simple command of their own, and keeps every literal word (for
// denyMentions).
func (a *shellAnalysis) node(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause:
		a.opaquef("it has arithmetic or a [[ ]] test, whose operands bash may compute (array subscripts run commands)")
	case *syntax.ParamExp:
		if n.Index != nil || n.Slice != nil || n.Excl {
			a.opaquef("it expands a variable with a subscript or indirection, which bash computes")
		}
	case *syntax.ForClause:
		if wi, ok := n.Loop.(*syntax.WordIter); ok {
			a.riskyf("it sets variables (for %s)", litValue(wi.Name))
			if specialVar(litValue(wi.Name)) {
				a.opaquef("it sets %s, which changes what runs", litValue(wi.Name))
			}
		} else {
			a.opaquef("it has an arithmetic for loop")
		}
	case *syntax.Assign:
		if n.Name != nil && specialVar(n.Name.Value) {
			a.opaquef("it sets %s, which changes what runs", n.Name.Value)
		}
	case *syntax.Word:
		if s, ok := literal(n); ok {
			a.words = append(a.words, s)
			if holdsCode(s) {
				a.opaquef("a word holds shell code (%s) that bash or a program may run later", wordText(n))
			}
		}
	}
}

// holdsCode spots text that a later evaluation would run.
func holdsCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`") || strings.Contains(s, "${") || strings.Contains(s, "<(")
}

// specialVar names variables that change which program runs or run code.
func specialVar(name string) bool {
	switch name {
	case "PATH", "IFS", "ENV", "BASH_ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "SHELLOPTS", "BASHOPTS",
		"CDPATH", "GLOBIGNORE", "BASH_XTRACEFD", "EXECIGNORE", "PAGER", "EDITOR", "VISUAL":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_FUNC") || strings.HasPrefix(name, "GIT_") || strings.HasSuffix(name, "_COMMAND")
}

// laterCode are builtins that store or take code bash runs later, or
// run a script deny cannot read.
var laterCode = map[string]string{
	"trap": "trap stores a command bash runs later", "alias": "alias defines a command", "hash": "hash -p renames a program",
	"mapfile": "mapfile -C runs a callback", "readarray": "readarray -C runs a callback", "complete": "complete -C runs a command",
	"compgen": "compgen -C runs a command", "bind": "bind -x runs a command", "enable": "enable loads builtins", "fc": "fc runs commands from history",
	"source": "source runs a script", ".": ". runs a script", "declare": "declare may set attributes that run code", "typeset": "typeset may set attributes that run code",
	"read": "read may assign an array subscript", "printf": "printf -v may assign an array subscript", "unset": "unset may evaluate an array subscript",
	"set": "set changes how bash runs what follows", "shopt": "shopt changes how bash runs what follows",
}

// builtinRisk marks builtins from laterCode; read/printf/unset only when
// a word could be a subscript, set/shopt only with options.
func (a *shellAnalysis) builtinRisk(prog string, args []string) {
	why, ok := laterCode[prog]
	if !ok {
		return
	}
	switch prog {
	case "read", "printf", "unset":
		if !slices.ContainsFunc(args, func(s string) bool { return strings.Contains(s, "[") }) && !(prog == "printf" && slices.Contains(args, "-v")) {
			return
		}
	case "set", "shopt":
		if len(args) == 0 {
			return
		}
	}
	a.opaquef("%s", why)
}

// globName spots a command name bash expands as a pattern (/bin/r[m]).
func globName(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "*?[") && lit.Value != "[" && lit.Value != "[[" {
			return true
		}
	}
	return false
}

// networkRedirect spots bash's own connections: < /dev/tcp/HOST/PORT.
func networkRedirect(target string) bool {
	return strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/")
}

// outsidePaths are the arguments that name paths outside dir: absolute
// paths elsewhere, ~, and ../ that climbs out. dir "" is unknown: every
// absolute path counts.
func outsidePaths(args []string, dir string) []string {
	var out []string
	for _, arg := range args {
		if arg == computed {
			continue
		}
		p := arg
		if strings.HasPrefix(p, "-") {
			_, v, ok := strings.Cut(p, "=")
			if !ok {
				continue
			}
			p = v
		}
		switch {
		case p == "/dev/null", p == "/dev/stdin", p == "/dev/stdout", p == "/dev/stderr", p == "-":
		case strings.HasPrefix(p, "~"):
			out = append(out, arg)
		case path.IsAbs(p):
			if _, in := under(dir, filepath.Clean(p)); dir == "" || !in {
				out = append(out, arg)
			}
		case p == ".." || strings.HasPrefix(path.Clean(p), "../"):
			out = append(out, arg)
		}
	}
	return out
}

// denyMentions are the deny_shell entries whose every word appears in the
// line as a word of its own, in a place that was not checked as a
// command: a program that runs another (flock, script, strace, an alias,
// git -c alias.p=push) may run it.
func denyMentions(line string, words []string, deny []string) []string {
	tokens := map[string]bool{}
	add := func(s string) {
		s = strings.NewReplacer(`\`, "", `'`, "", `"`, "").Replace(s)
		for _, f := range strings.FieldsFunc(s, func(r rune) bool {
			return !(r == '_' || r == '-' || r == '.' || r == '+' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			tokens[f] = true
		}
	}
	add(line)
	for _, w := range words {
		add(w)
	}
	var out []string
	for _, prefix := range deny {
		p := strings.Fields(prefix)
		if len(p) == 0 {
			continue
		}
		p[0] = path.Base(p[0])
		if !slices.ContainsFunc(p, func(w string) bool { return !tokens[w] }) {
			out = append(out, "it mentions "+prefix+", which the user denies, where it may run")
		}
	}
	return out
}

// gitRunsPrograms reports the keys of the repository's config at dir (or
// above) that make git run a program (core.fsmonitor, diff.external …),
// or that include a file the policy does not read.
func gitRunsPrograms(dir string) []string {
	if dir == "" {
		return nil
	}
	var found []string
	for d := dir; ; d = filepath.Dir(d) {
		cfg := filepath.Join(d, ".git", "config")
		if f, err := os.Open(cfg); err == nil {
			found = programKeys(f)
			f.Close()
			return found
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

func programKeys(f *os.File) []string {
	var found []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.ToLower(strings.TrimSpace(sc.Text()))
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(strings.Fields(line + " ]")[0], "[]")
			if section == "include" || section == "includeif" || section == "alias" {
				found = append(found, section)
			}
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		switch key {
		case "fsmonitor", "pager", "editor", "sshcommand", "external", "textconv", "clean", "smudge", "process",
			"helper", "hookspath", "askpass", "program", "cmd", "command", "tool", "gpgprogram", "difftool", "mergetool":
			found = append(found, section+"."+key)
		}
		if strings.HasPrefix(section, "pager") {
			found = append(found, section+"."+key)
		}
	}
	return found
}
