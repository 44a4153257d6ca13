package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSkill(t *testing.T, dir, folder, text string) string {
	t.Helper()
	p := filepath.Join(dir, folder)
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "SKILL.md"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSkills: skills are found in the project's folder and the user's (the
// project's wins on a name), bad ones are reported, not fatal; the tool
// loads a body, and the files beside it are readable without asking.
func TestSkills(t *testing.T) {
	t.Parallel()
	project, user, work := t.TempDir(), t.TempDir(), t.TempDir()
	release := writeSkill(t, project, "release", "---\nname: release\ndescription: >\n  How to cut a release\n  of this project.\n---\n# Release\n\n1. Run `make test`.\n2. Read checklist.md.\n")
	_ = os.WriteFile(filepath.Join(release, "checklist.md"), []byte("- tag it\n"), 0o600)
	writeSkill(t, user, "release", "---\nname: release\ndescription: the user's older copy\n---\nold")
	writeSkill(t, user, "review", "---\nname: \"review\"\ndescription: Review Go code for bugs.\n---\nLook for races.")
	writeSkill(t, user, "broken", "no front matter here")
	_ = os.MkdirAll(filepath.Join(user, "empty"), 0o700)

	outside := writeSkill(t, t.TempDir(), "sneaky", "---\nname: sneaky\ndescription: points elsewhere\n---\nx")
	if err := os.Symlink(outside, filepath.Join(project, "sneaky")); err != nil {
		t.Fatal(err)
	}
	skills, problems := FindSkills(SkillDir{Path: project}, SkillDir{Path: user, Trusted: true}, SkillDir{Path: filepath.Join(user, "missing")})
	if len(skills) != 2 || skills[0].Name != "release" || skills[1].Name != "review" {
		t.Fatalf("skills %+v", skills)
	}
	if skills[0].Description != "How to cut a release of this project." {
		t.Fatalf("description %q", skills[0].Description)
	}
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), "a link out of") || !strings.Contains(problems[1].Error(), "broken") {
		t.Fatalf("problems %v", problems)
	}
	st := &Skills{List: skills}
	if ad := st.Advertisement(); !strings.Contains(ad, "<available_skills>") || !strings.Contains(ad, "- review: Review Go code for bugs.") {
		t.Fatal(ad)
	}
	set := NewSet(st, ReadFile{reader[readFileName]{Workspace: Workspace{Root: work}}})
	set.Policy().Grant(st.ReadGrants()...)
	if err := CheckArgs(st.Parameters(), json.RawMessage(`{"name":"nope"}`)); err == nil {
		t.Fatal("an unknown skill name passed the schema")
	}
	res := set.Dispatch(context.Background(), "skill", `{"name":"release"}`)
	if res.Err != nil || !strings.Contains(res.Content, "1. Run `make test`.") || !strings.Contains(res.Content, release) {
		t.Fatal(res)
	}
	// No approver: a read outside the working directory would be refused,
	// but the skill's folder is granted.
	args, _ := json.Marshal(map[string]string{"path": filepath.Join(release, "checklist.md")})
	if res := set.Dispatch(context.Background(), "read_file", string(args)); res.Err != nil || !strings.Contains(res.Content, "tag it") {
		t.Fatal(res)
	}
	args, _ = json.Marshal(map[string]string{"path": filepath.Join(user, "release", "SKILL.md")}) // shadowed by the project's
	if res := set.Dispatch(context.Background(), "read_file", string(args)); res.Err == nil {
		t.Fatal("a folder that is not a loaded skill's was readable without asking")
	}
}

// TestLinkedSkillsFolderIsSkipped: a project whose .chat/skills (or .chat)
// is a link out of it brings no skills.
func TestLinkedSkillsFolderIsSkipped(t *testing.T) {
	t.Parallel()
	elsewhere := t.TempDir()
	writeSkill(t, elsewhere, "evil", "---\nname: evil\ndescription: reads your keys\n---\nbody")
	for _, link := range []string{".chat/skills", ".chat"} {
		project := t.TempDir()
		target := elsewhere
		if link == ".chat" {
			target = filepath.Dir(elsewhere)
			_ = os.MkdirAll(filepath.Join(target, "skills"), 0o700)
			writeSkill(t, filepath.Join(target, "skills"), "evil2", "---\nname: evil2\ndescription: x\n---\nbody")
		}
		_ = os.MkdirAll(filepath.Dir(filepath.Join(project, link)), 0o700)
		if err := os.Symlink(target, filepath.Join(project, link)); err != nil {
			t.Fatal(err)
		}
		skills, problems := FindSkills(SkillDir{Path: filepath.Join(project, ".chat", "skills"), Project: project})
		if len(skills) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "link out of the project") {
			t.Errorf("%s: skills %v, problems %v", link, skills, problems)
		}
	}
}
