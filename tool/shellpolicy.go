package tool

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/chatrepl/chat/internal/clip"
)

// shellCommand is one simple command of a command line as the policy sees
// it: the program's base name, then its arguments, unquoted.
type shellCommand []string

func (c shellCommand) String() string { return strings.Join(c, " ") }

// shellAnalysis is what parsing a command line found. A line runs without
// asking only when every command in it is allowed and nothing is risky;
// it is denied when any command matches deny_shell. Opaque parts are ones
// deny_shell cannot see into (a computed command name, a shell reading
// its script from a pipe, a line that does not parse).
type shellAnalysis struct {
	commands []shellCommand
	// wrappers are the commands that only run another one (timeout 60
	// go test): deny sees them, allow looks at what they run.
	wrappers map[int]bool
	risky    []string
	opaque   []string
	dir      string   // the working directory, to tell paths outside it
	words    []string // every literal word, for what deny must not miss
	line     string
	gitKeys  *[]string // the repository's program-running git config, read once
}

// computed stands for a word the shell computes when the line runs.
const computed = "\x00computed"

// maxShellDepth bounds how deep sh -c strings and eval are parsed.
const maxShellDepth = 6

func analyzeShell(line, dir string) shellAnalysis {
	a := shellAnalysis{dir: dir, line: line}
	if tooBigToCheck(line) {
		a.opaquef("the command is too long or too deeply nested to check")
		return a
	}
	a.parse(line, 0)
	return a
}

// opaqueTo is what a deny list cannot see through: the opaque parts, and
// mentions of a denied command outside the places checked as commands.
func (a shellAnalysis) opaqueTo(deny []string) []string {
	if len(deny) == 0 {
		return nil
	}
	return append(slices.Clone(a.opaque), denyMentions(a.line, a.words, deny)...)
}

func (a *shellAnalysis) riskyf(format string, args ...any) {
	if r := fmt.Sprintf(format, args...); !slices.Contains(a.risky, r) {
		a.risky = append(a.risky, r)
	}
}

func (a *shellAnalysis) opaquef(format string, args ...any) {
	r := fmt.Sprintf(format, args...)
	a.riskyf("%s", r)
	if !slices.Contains(a.opaque, r) {
		a.opaque = append(a.opaque, r)
	}
}

func (a *shellAnalysis) parse(line string, depth int) {
	if depth > maxShellDepth {
		a.opaquef("shell commands are nested too deeply to check")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		a.opaquef("it does not parse as a shell command (%v)", err)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		a.node(n)
		switch n := n.(type) {
		case *syntax.CallExpr:
			a.call(n, depth)
		case *syntax.Redirect:
			a.redirect(n)
		case *syntax.DeclClause:
			a.riskyf("it sets variables (%s)", litValue(n.Variant))
		case *syntax.FuncDecl:
			a.riskyf("it defines a shell function (%s), which could stand in for any command", litValue(n.Name))
		case *syntax.CoprocClause:
			a.riskyf("it starts a coprocess")
		}
		return true
	})
}

func (a *shellAnalysis) redirect(r *syntax.Redirect) {
	target, ok := literal(r.Word)
	if ok && networkRedirect(target) {
		a.opaquef("it opens a network connection (%s)", target)
	}
	if ok && r.Op == syntax.RdrIn {
		if out := outsidePaths([]string{target}, a.dir); len(out) > 0 {
			a.riskyf("it reads a file outside the working directory (%s)", target)
		}
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		if !ok || target != "/dev/null" {
			a.riskyf("it writes to a file (%s %s)", r.Op, wordText(r.Word))
		}
	case syntax.DplOut, syntax.DplIn:
		if !ok || (target != "-" && strings.Trim(target, "0123456789") != "") {
			a.riskyf("it redirects to a file (%s %s)", r.Op, wordText(r.Word))
		}
	}
}

func (a *shellAnalysis) call(c *syntax.CallExpr, depth int) {
	if len(c.Assigns) > 0 {
		a.riskyf("it sets variables (%s=…)", c.Assigns[0].Name.Value)
	}
	if len(c.Args) == 0 {
		return
	}
	if globName(c.Args[0]) {
		a.opaquef("the command name %s is a pattern bash expands", wordText(c.Args[0]))
		return
	}
	words := make([]string, 0, len(c.Args))
	for i, w := range c.Args {
		s, ok := literal(w)
		if !ok {
			if i == 0 {
				a.opaquef("the command name %s is computed when it runs", wordText(w))
				return
			}
			a.riskyf("an argument (%s) is computed when it runs", wordText(w))
			s = computed
		}
		words = append(words, s)
	}
	a.command(words, depth)
}

// command records words as a command, then looks inside wrappers (sudo,
// env, timeout …), shells given a string (bash -c), eval, find -exec and
// xargs, whose arguments are commands too.
func (a *shellAnalysis) command(words []string, depth int) {
	if len(words) == 0 {
		return
	}
	if words[0] == computed {
		a.opaquef("a command name is computed when it runs")
		return
	}
	if hasGlob(words[0]) {
		a.opaquef("the command name %s is a pattern", words[0])
		return
	}
	prog := path.Base(words[0])
	if prog != words[0] && strings.Contains(words[0], "/") {
		words = append([]string{prog}, words[1:]...)
	}
	a.commands = append(a.commands, shellCommand(words))
	index := len(a.commands) - 1
	args := words[1:]
	a.builtinRisk(prog, args)
	if out := outsidePaths(args, a.dir); len(out) > 0 {
		a.riskyf("it names a path outside the working directory (%s)", strings.Join(out, " "))
	}
	if prog == "git" {
		if a.gitKeys == nil {
			keys := gitRunsPrograms(a.dir)
			a.gitKeys = &keys
		}
		if len(*a.gitKeys) > 0 {
			a.opaquef("the repository's git config makes git run programs (%s)", strings.Join(*a.gitKeys, ", "))
		}
	}
	for _, arg := range args {
		if hasGlob(arg) && riskyFlags[prog] != nil {
			a.riskyf("%s is given a pattern (%s) that could expand to options", prog, arg)
		}
	}
	for _, flag := range riskyFlags[prog] {
		for _, arg := range args {
			if isFlag(arg, flag) {
				if slices.Contains(writeFlags[prog], flag) {
					a.riskyf("%s %s writes where it is told", prog, flag)
				} else {
					a.opaquef("%s %s can run another program", prog, flag)
				}
			}
		}
	}
	switch prog {
	case "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox":
		a.shell(prog, args, depth)
	case "eval":
		a.riskyf("eval runs its arguments as a command")
		if slices.Contains(args, computed) {
			a.opaquef("eval runs a command computed when it runs")
		}
		a.parse(strings.Join(args, " "), depth+1)
	case "find":
		a.find(args, depth)
	case "source", ".":
		a.riskyf("%s runs a script", prog)
	default:
		if w, ok := wrappers[prog]; ok {
			if w.risky != "" {
				a.riskyf("%s", w.risky)
			}
			rest, setsVars, str, unknown := w.skip(args)
			if len(unknown) > 0 {
				a.opaquef("%s is given options the policy does not know (%s)", prog, strings.Join(unknown, " "))
			}
			if w.risky == "" && (len(rest) > 0 || str != "") {
				if a.wrappers == nil {
					a.wrappers = map[int]bool{}
				}
				a.wrappers[index] = true
			}
			if setsVars {
				a.riskyf("%s sets variables for the command", prog)
			}
			switch str {
			case "":
			case computed:
				a.opaquef("%s runs a command computed when it runs", prog)
			default:
				a.parse(str, depth+1)
			}
			a.command(rest, depth)
		}
	}
}

// shell handles bash/sh: -c STRING is parsed as a line; a shell without
// -c and without a script reads commands from its input, unseen.
func (a *shellAnalysis) shell(prog string, args []string, depth int) {
	if prog == "busybox" {
		if len(args) == 0 || args[0] != "sh" {
			return
		}
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		switch arg {
		case "-o", "+o", "-O", "+O", "--rcfile", "--init-file":
			i++
			continue
		}
		if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.Contains(arg, "c") {
			switch {
			case i+1 >= len(args):
			case args[i+1] == computed:
				a.opaquef("%s -c runs a command computed when it runs", prog)
			default:
				a.parse(args[i+1], depth+1)
			}
			return
		}
		if !strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "+") {
			a.opaquef("%s runs a script file (%s), which the policy does not read", prog, arg)
			return
		}
	}
	a.opaquef("%s reads the commands to run from its input", prog)
}

// find: -exec and friends run a command; -delete and -fprint write.
func (a *shellAnalysis) find(args []string, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			a.command(slices.Clone(args[i+1:j]), depth)
			i = j
		}
	}
}

// wrapper is a program that runs the command in its arguments.
type wrapper struct {
	boolFlags   []string // options without a value
	valueFlags  []string // options that take the next word as their value
	positional  int      // leading operands before the command (timeout's duration)
	risky       string   // why using it at all asks
	env         bool     // NAME=value words before the command set variables
	stringFlags []string // options whose value is a whole command line (env -S)
}

var wrappers = map[string]wrapper{
	"command": {boolFlags: []string{"-p", "-v", "-V"}},
	"builtin": {},
	"exec":    {boolFlags: []string{"-c", "-l"}, valueFlags: []string{"-a"}},
	"nohup":   {},
	"time":    {boolFlags: []string{"-p", "-v", "-a", "-q", "--portability", "--verbose", "--append", "--quiet"}, valueFlags: []string{"-f", "-o", "--format", "--output"}},
	"nice":    {valueFlags: []string{"-n", "--adjustment"}},
	"ionice":  {boolFlags: []string{"-t", "--ignore"}, valueFlags: []string{"-c", "-n", "--class", "--classdata"}},
	"timeout": {boolFlags: []string{"--preserve-status", "--foreground", "-v", "--verbose"}, valueFlags: []string{"-s", "-k", "--signal", "--kill-after"}, positional: 1},
	"stdbuf":  {valueFlags: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
	"setsid":  {boolFlags: []string{"-c", "-f", "-w", "--ctty", "--fork", "--wait"}},
	"env":     {boolFlags: []string{"-", "-i", "--ignore-environment", "-0", "--null", "-v", "--debug"}, valueFlags: []string{"-u", "-C", "--unset", "--chdir"}, env: true, stringFlags: []string{"-S", "--split-string"}},
	"sudo": {boolFlags: []string{"-E", "-H", "-n", "-b", "-i", "-s", "-k", "-K", "-S", "-P", "-A", "--preserve-env", "--non-interactive", "--login", "--shell"},
		valueFlags: []string{"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}, risky: "sudo runs a command as another user", env: true},
	"doas":  {boolFlags: []string{"-n", "-s"}, valueFlags: []string{"-u", "-C"}, risky: "doas runs a command as another user"},
	"xargs": {boolFlags: []string{"-0", "-t", "-p", "-r", "-x", "--null", "--verbose", "--interactive", "--no-run-if-empty", "--exit"}, valueFlags: []string{"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace"}, risky: "xargs runs a command built from its input"},
	"watch": {boolFlags: []string{"-d", "-t", "-b", "-e", "-g", "-c", "-x", "-p", "-w"}, valueFlags: []string{"-n", "--interval"}, risky: "watch runs a command repeatedly"},
}

// skip returns the wrapped command, whether NAME=value words set
// variables for it, a command line given as a string (env -S), and the
// options it does not know (which may hide a command).
func (w wrapper) skip(args []string) (rest []string, setsVars bool, str string, unknown []string) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, _, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--":
			rest, setsVars, str = w.operands(args[i+1:], setsVars, str)
			return rest, setsVars, str, unknown
		case slices.Contains(w.stringFlags, arg) && i+1 < len(args):
			return nil, setsVars, args[i+1], unknown
		case strings.HasPrefix(arg, "--") && hasValue && slices.Contains(w.stringFlags, name):
			return nil, setsVars, arg[len(name)+1:], unknown
		case len(arg) > 2 && arg[1] != '-' && slices.Contains(w.stringFlags, arg[:2]):
			return nil, setsVars, arg[2:], unknown
		case slices.Contains(w.valueFlags, arg):
			i++
		case slices.Contains(w.boolFlags, arg):
		case strings.HasPrefix(arg, "--") && hasValue && slices.Contains(w.valueFlags, name):
		case len(arg) > 2 && arg[1] != '-' && slices.Contains(w.valueFlags, arg[:2]):
			// -n5, -oL: the value attached
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			unknown = append(unknown, arg)
		case w.env && strings.Contains(arg, "=") && !strings.HasPrefix(arg, "="):
			setsVars = true
		default:
			rest, setsVars, str = w.operands(args[i:], setsVars, str)
			return rest, setsVars, str, unknown
		}
	}
	return nil, setsVars, str, unknown
}

func (w wrapper) operands(args []string, setsVars bool, str string) ([]string, bool, string) {
	if len(args) < w.positional {
		return nil, setsVars, str
	}
	return args[w.positional:], setsVars, str
}

// writeFlags are the riskyFlags that only write a file; the others run
// another program, which deny cannot see.
var writeFlags = map[string][]string{
	"go":   {"-o", "-cpuprofile", "-coverprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"},
	"git":  {"--output", "-o"},
	"sed":  {"-i", "--in-place"},
	"sort": {"-o", "--output"},
	"curl": {"-o", "--output", "-O", "--remote-name"},
	"wget": {"-O", "-o", "--output-document", "--output-file"},
	"time": {"-o", "--output"},
}

// riskyFlags are the options with which an otherwise harmless program runs
// another program or writes where it is told: they always ask.
var riskyFlags = map[string][]string{
	"go": {"-exec", "-toolexec", "-o", "-vettool", "-overlay", "-modfile", "-pgo", "-ldflags", "-gcflags", "-asmflags", "-gccgoflags", "-cpuprofile",
		"-coverprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"},
	"git": {"-c", "--config-env", "--output", "-o", "--exec", "--exec-path", "--upload-pack", "--receive-pack", "-u", "-O", "--open-files-in-pager", "--ext-diff", "--textconv",
		"-C", "--git-dir", "--work-tree", "--no-index"},
	"find":  {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"sed":   {"-i", "--in-place"},
	"sort":  {"-o", "--output", "--compress-program"},
	"tar":   {"--to-command", "-I", "--use-compress-program", "--checkpoint-action", "--info-script", "-F", "--new-volume-script"},
	"rg":    {"--pre"},
	"curl":  {"-o", "--output", "-O", "--remote-name", "-K", "--config", "-T", "--upload-file"},
	"wget":  {"-O", "-o", "--output-document", "--output-file", "-e", "--execute", "--post-file"},
	"rsync": {"-e", "--rsh"},
	"ssh":   {"-o", "-F"},
	"zip":   {"-T", "-TT", "--unzip-command"},
	"man":   {"-P", "--pager", "-H"},
	"time":  {"-o", "--output"},
	"make":  {"-f", "--file", "--eval"},
}

// isFlag matches an option in its spellings: -o, -o=x, --o (Go accepts
// both dashes), -ofile for one-letter short options.
func isFlag(arg, flag string) bool {
	if arg == flag || strings.HasPrefix(arg, flag+"=") {
		return true
	}
	if strings.HasPrefix(flag, "-") && !strings.HasPrefix(flag, "--") {
		if arg == "-"+flag || strings.HasPrefix(arg, "-"+flag+"=") {
			return true
		}
		if len(flag) == 2 && strings.HasPrefix(arg, flag) && !strings.HasPrefix(arg, "--") {
			return true // -ofile, -c.core.pager=x
		}
	}
	return false
}

// subcommandOptions are the global options that take a value before a
// subcommand: "git -C . push" is git push.
var subcommandOptions = map[string][]string{
	"git":     {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"},
	"go":      {"-C"},
	"docker":  {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"},
	"kubectl": {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s", "--server", "--user"},
	"npm":     {"--prefix", "-C"},
	"cargo":   {"-C", "--config"},
	"make":    {"-C", "-f", "--file", "--directory", "-j", "--jobs"},
}

// key is the command as a prefix is matched against it: the program, its
// first operand after the global options (its subcommand), then the
// remaining operands; options are left out.
func (c shellCommand) key() []string {
	if len(c) == 0 {
		return nil
	}
	out := []string{c[0]}
	opts := subcommandOptions[c[0]]
	for i := 1; i < len(c); i++ {
		arg := c[i]
		switch {
		case len(out) == 1 && slices.Contains(opts, arg):
			i++
		case strings.HasPrefix(arg, "-") && len(arg) > 1, len(out) == 1 && strings.HasPrefix(arg, "+"):
		default:
			out = append(out, arg)
		}
	}
	return out
}

// matches reports whether a configured prefix ("git push", "go test",
// "rm") names this command: by its words as written, or by its key.
func (c shellCommand) matches(prefix string) bool {
	p := strings.Fields(prefix)
	if len(p) == 0 {
		return false
	}
	p[0] = path.Base(p[0])
	k := c.key()
	return (len(c) >= len(p) && slices.Equal(c[:len(p)], p)) || (len(k) >= len(p) && slices.Equal(k[:len(p)], p))
}

// grantPrefix is what an "always" answer allows from now on: the program
// and, for programs with subcommands, the subcommand.
func (c shellCommand) grantPrefix() string {
	k := c.key()
	if _, sub := subcommandOptions[k[0]]; (sub || multiCommand[k[0]]) && len(k) > 1 {
		return k[0] + " " + k[1]
	}
	return k[0]
}

var multiCommand = map[string]bool{"pnpm": true, "yarn": true, "pip": true, "uv": true, "gh": true, "apt": true, "brew": true, "systemctl": true, "bun": true, "deno": true, "dotnet": true, "mvn": true, "gradle": true, "poetry": true, "rustup": true}

// literal is a word's value when it is fixed text (quotes and escapes
// removed); ok is false when the shell computes it (expansions,
// substitutions, ANSI-C strings, brace expansion).
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if hasBraceExpansion(p.Value) {
				return "", false
			}
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, in := range p.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes the shell removes: every one outside
// quotes; inside double quotes only before $ ` " \ and newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", next) >= 0 {
				if next != '\n' {
					b.WriteByte(next)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasBraceExpansion spots {a,b} and {1..3}, which bash expands into
// several words.
func hasBraceExpansion(s string) bool {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return false
	}
	rest := s[open:]
	end := strings.IndexByte(rest, '}')
	return end > 0 && (strings.Contains(rest[:end], ",") || strings.Contains(rest[:end], ".."))
}

func litValue(l *syntax.Lit) string {
	if l == nil {
		return ""
	}
	return l.Value
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

func wordText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return clip.String(b.String(), 120)
}
