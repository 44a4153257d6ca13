// Package promptfile reads the person's and the project's prompt files,
// each a slash command: chat's own (.chat/commands/NAME.md), and the
// neighbours' libraries as they are (.claude/commands/**/*.md, whose
// subfolders are namespaces, /sub:name; .gemini/commands/**/*.toml). It
// finds, parses and expands them; what may run, and who trusts the
// project's, is the caller's. It imports nothing of chat's.
package promptfile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Command is one prompt file.
type Command struct {
	Name         string // "review", "git:commit"
	Description  string
	ArgumentHint string
	Model        string // the model its turn runs with ("": the session's)
	Body         string // the prompt, before its arguments are put in
	Path         string
	Source       string // the folder it came from, as the person knows it
	Project      bool   // the project's (trusted like its hooks), not the person's
	gemini       bool
	Content      []byte // the file as read (its trust is of this)
}

// Dir is a folder of prompt files.
type Dir struct {
	Path    string
	Source  string // ".chat/commands", "~/.claude/commands" …
	Project bool
	Gemini  bool // .toml files in Gemini CLI's form, else Markdown
}

// Dirs are the folders chat reads, first wins for a name: the project's
// (chat's, Claude Code's, Gemini CLI's), then the person's (chat's in
// configDir, then the neighbours' under home).
func Dirs(projectRoot, configDir, home string) []Dir {
	var out []Dir
	if projectRoot != "" {
		out = append(out,
			Dir{filepath.Join(projectRoot, ".chat", "commands"), ".chat/commands", true, false},
			Dir{filepath.Join(projectRoot, ".claude", "commands"), ".claude/commands", true, false},
			Dir{filepath.Join(projectRoot, ".gemini", "commands"), ".gemini/commands", true, true})
	}
	if configDir != "" {
		out = append(out, Dir{configDir, "~/.config/chat/commands", false, false})
	}
	if home != "" {
		out = append(out,
			Dir{filepath.Join(home, ".claude", "commands"), "~/.claude/commands", false, false},
			Dir{filepath.Join(home, ".gemini", "commands"), "~/.gemini/commands", false, true})
	}
	return out
}

// maxFile bounds a prompt file.
const maxFile = 256 << 10

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// Load reads the prompt files of dirs. A name found again in a later
// folder is left out (Shadowed names it); a file that cannot be read or
// parsed is said in problems and left out.
func Load(dirs []Dir) (cmds []Command, shadowed []Command, problems []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		ext := ".md"
		if d.Gemini {
			ext = ".toml"
		}
		var found []Command
		_ = filepath.WalkDir(d.Path, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(p), ext) || !e.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(d.Path, p)
			name := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel)), "/", ":")
			if !validName.MatchString(name) {
				problems = append(problems, fmt.Sprintf("%s: %q is not a command name", p, name))
				return nil
			}
			c, err := parse(p, d, name)
			if err != nil {
				problems = append(problems, err.Error())
				return nil
			}
			found = append(found, c)
			return nil
		})
		for _, c := range found {
			if seen[c.Name] {
				shadowed = append(shadowed, c)
				continue
			}
			seen[c.Name] = true
			cmds = append(cmds, c)
		}
	}
	return cmds, shadowed, problems
}

func parse(path string, d Dir, name string) (Command, error) {
	c := Command{Name: name, Path: path, Source: d.Source, Project: d.Project, gemini: d.Gemini}
	st, err := os.Stat(path)
	if err != nil {
		return c, err
	}
	if st.Size() > maxFile {
		return c, fmt.Errorf("%s: larger than %d KiB, left out", path, maxFile>>10)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	c.Content = b
	if d.Gemini {
		var g struct {
			Prompt      string `toml:"prompt"`
			Description string `toml:"description"`
		}
		if _, err := toml.Decode(string(b), &g); err != nil {
			return c, fmt.Errorf("%s: %v", path, err)
		}
		if strings.TrimSpace(g.Prompt) == "" {
			return c, fmt.Errorf("%s: no prompt", path)
		}
		c.Body, c.Description = g.Prompt, g.Description
		return c, nil
	}
	body := b
	if rest, ok := bytes.CutPrefix(bytes.TrimLeft(b, "\ufeff"), []byte("---\n")); ok {
		if front, after, ok := bytes.Cut(rest, []byte("\n---")); ok {
			// Read as Claude Code does, a line a key: its hints are not
			// always YAML ("[issue] [priority]").
			fm := frontMatter(string(front))
			c.Description, c.Model, c.ArgumentHint = fm["description"], fm["model"], fm["argument-hint"]
			body = bytes.TrimPrefix(bytes.TrimPrefix(after, []byte("\r")), []byte("\n"))
		}
	}
	c.Body = string(body)
	if strings.TrimSpace(c.Body) == "" {
		return c, fmt.Errorf("%s: empty", path)
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

// frontMatter is "key: value" lines, values unquoted.
func frontMatter(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(strings.TrimSpace(k), "#") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if len(l) > 80 {
				l = l[:77] + "…"
			}
			return l
		}
	}
	return ""
}

var positional = regexp.MustCompile(`\$([1-9])`)

// Expand is the prompt with args put in: $ARGUMENTS (all of them) and
// $1…$9 (each, split as a shell would, quotes kept together) in chat's
// and Claude Code's form, {{args}} in Gemini CLI's. Arguments the prompt
// has no place for are added after it, as those tools do.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if c.gemini {
		if strings.Contains(c.Body, "{{args}}") {
			return strings.ReplaceAll(c.Body, "{{args}}", args)
		}
		return joinArgs(c.Body, args)
	}
	placed := strings.Contains(c.Body, "$ARGUMENTS") || positional.MatchString(c.Body)
	words := Split(args)
	out := strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	out = positional.ReplaceAllStringFunc(out, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !placed {
		return joinArgs(out, args)
	}
	return out
}

func joinArgs(body, args string) string {
	if args == "" {
		return body
	}
	return strings.TrimRight(body, "\n") + "\n\n" + args
}

// Split cuts args into words as a shell would: spaces part them, single
// or double quotes keep a word's spaces.
func Split(args string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	in := false
	for _, r := range args {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}
