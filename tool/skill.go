package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatrepl/chat/internal/regular"
)

// SkillName is the name the model loads skills by.
const SkillName = "skill"

// maxSkillBytes bounds one SKILL.md: instructions, not a corpus.
const maxSkillBytes = 256 << 10

// Skill is a folder with a SKILL.md: YAML front matter (name,
// description) and a body of instructions the model loads on demand.
type Skill struct {
	Name, Description string
	Dir               string // the folder; files beside SKILL.md are readable
	Body              string
}

// SkillDir is a folder of skill folders. A project's is not Trusted: a
// skill folder in it that is a link to somewhere outside it is skipped (a
// cloned repository must not point the granted reading elsewhere).
type SkillDir struct {
	Path    string
	Trusted bool
	// Project, for a folder of the project's, is where it must really be:
	// a .chat/skills (or .chat) that links out of the project is skipped.
	Project string
}

// FindSkills reads the skills under dirs, earlier dirs first: a later
// skill with the same name is skipped, so the working directory's
// .chat/skills wins over the user's. A folder whose SKILL.md cannot be
// used is reported in problems and skipped.
func FindSkills(dirs ...SkillDir) (skills []Skill, problems []error) {
	seen := map[string]bool{}
	for _, sd := range dirs {
		dir := sd.Path
		if sd.Project != "" && !inside(sd.Project, dir) {
			if _, err := os.Lstat(dir); err == nil {
				problems = append(problems, fmt.Errorf("%s: a link out of the project %s; skipped", dir, sd.Project))
			}
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				problems = append(problems, err)
			}
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
				continue
			}
			folder := filepath.Join(dir, e.Name())
			if !sd.Trusted && !inside(dir, folder) {
				problems = append(problems, fmt.Errorf("%s: a link out of %s; skipped", folder, dir))
				continue
			}
			s, err := readSkill(folder)
			switch {
			case errors.Is(err, os.ErrNotExist):
			case err != nil:
				problems = append(problems, err)
			case !seen[s.Name]:
				seen[s.Name] = true
				skills = append(skills, s)
			}
		}
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, problems
}

// inside reports whether path, links resolved, is under dir's resolved path.
func inside(dir, path string) bool {
	_, in := under(realPath(dir), realPath(path))
	return in
}

func readSkill(dir string) (Skill, error) {
	path := filepath.Join(dir, "SKILL.md")
	f, err := regular.Open(path)
	if err != nil {
		return Skill{}, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxSkillBytes+1)); err != nil {
		return Skill{}, fmt.Errorf("%s: %w", path, err)
	}
	if buf.Len() > maxSkillBytes {
		return Skill{}, fmt.Errorf("%s: larger than %d KiB", path, maxSkillBytes>>10)
	}
	front, body, ok := frontMatter(buf.String())
	if !ok {
		return Skill{}, fmt.Errorf("%s: no front matter (a --- block with name and description)", path)
	}
	var meta struct{ Name, Description string }
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		return Skill{}, fmt.Errorf("%s: front matter: %w", path, err)
	}
	meta.Name, meta.Description = strings.TrimSpace(meta.Name), strings.TrimSpace(meta.Description)
	if meta.Name == "" || meta.Description == "" || strings.ContainsAny(meta.Name, "\n\r") {
		return Skill{}, fmt.Errorf("%s: the front matter needs a one-line name and a description", path)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Skill{}, err
	}
	return Skill{Name: meta.Name, Description: meta.Description, Dir: abs, Body: strings.TrimSpace(body)}, nil
}

// frontMatter splits "---\n<yaml>\n---\n<body>".
func frontMatter(s string) (front, body string, ok bool) {
	s = strings.TrimPrefix(s, "\ufeff")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return "", "", false
	}
	rest := s[len("---\n"):]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", false
	}
	body = rest[end+len("\n---"):]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		body = body[nl+1:]
	} else {
		body = ""
	}
	return rest[:end], body, true
}

// Skills is the skill tool: it loads a skill's instructions when the model
// asks for them. Reading a skill asks no approval (the person installed
// it); the files beside it are granted for reading (see ReadGrants).
type Skills struct {
	Unreviewed
	List []Skill
}

func (s *Skills) Name() string { return SkillName }

// ChangesFiles implements FileChanger: loading a skill reads.
func (s *Skills) ChangesFiles() bool { return false }

func (s *Skills) Description() string {
	return "Load a skill: instructions for a kind of task, listed in <available_skills>. Load one when the task matches its description, then follow it."
}

func (s *Skills) Parameters() json.RawMessage {
	names := make([]string, 0, len(s.List))
	for _, sk := range s.List {
		names = append(names, sk.Name)
	}
	return Object([]string{"name"}, map[string]*Schema{"name": Choice("the skill to load", names)})
}

func (s *Skills) Timeout() time.Duration { return 10 * time.Second }

func (s *Skills) Run(_ context.Context, raw json.RawMessage) (string, error) {
	var args struct{ Name string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	for _, sk := range s.List {
		if sk.Name == args.Name {
			return fmt.Sprintf("<skill name=%q dir=%q>\n%s\n</skill>\nFiles this skill mentions are in %s: read them with read_file (no approval needed there).",
				sk.Name, sk.Dir, sk.Body, sk.Dir), nil
		}
	}
	return "", fmt.Errorf("no skill named %q", args.Name)
}

// Advertisement is the <available_skills> block for the system prompt.
func (s *Skills) Advertisement() string {
	var b strings.Builder
	b.WriteString("<available_skills>\nSkills are instructions for kinds of tasks; load one with the skill tool when a task matches it:")
	for _, sk := range s.List {
		fmt.Fprintf(&b, "\n- %s: %s", sk.Name, strings.Join(strings.Fields(sk.Description), " "))
	}
	b.WriteString("\n</available_skills>")
	return b.String()
}

// ReadGrants lets the file tools read the skills' folders without asking.
func (s *Skills) ReadGrants() []Grant {
	var out []Grant
	for _, sk := range s.List {
		// Resolved as the file tools resolve the paths they are asked for.
		out = append(out, Grant{Kind: GrantRead, Value: realPath(sk.Dir)})
	}
	return out
}
