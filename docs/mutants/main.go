// Command mutants applies each mutant of the list to a copy of the tree,
// runs the tests of the package the mutant is in, and reports whether
// they caught it. A mutant is one small change that breaks a behaviour a
// person relies on; the package's own tests must fail on it (the
// end-to-end suite catching it is not enough: that is where a defect is
// hardest to find). Run it with `make mutants`; it exits 1 when one
// survives or no longer applies.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mutant is one change: the text From, found exactly once in File, is
// replaced by To. Run narrows the package's tests (a regexp for -run).
type mutant struct {
	File, From, To, Run string
	Breaks              string // what a person would meet
}

func main() {
	only := flag.String("only", "", "run the mutants whose file or description matches this regexp")
	timeout := flag.Duration("timeout", 90*time.Second, "how long a package's tests may take (a mutant that hangs them is caught)")
	flag.Parse()
	root, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	var pick *regexp.Regexp
	if *only != "" {
		pick = regexp.MustCompile(*only)
	}
	work, err := os.MkdirTemp("", "chat-mutants-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	if err := copyTree(root, work); err != nil {
		fail(err)
	}
	caught, bad := 0, 0
	for _, m := range mutants {
		if pick != nil && !pick.MatchString(m.File+" "+m.Breaks) {
			continue
		}
		verdict, out := try(work, m, *timeout)
		fmt.Printf("%-9s %s: %s\n", verdict, m.File, m.Breaks)
		if verdict == "caught" {
			caught++
			continue
		}
		bad++
		if out != "" {
			fmt.Println(indent(out))
		}
	}
	fmt.Printf("%d caught, %d not\n", caught, bad)
	if bad > 0 {
		os.Exit(1)
	}
}

// try applies m in the copy at work, runs its package's tests and puts
// the file back.
func try(work string, m mutant, timeout time.Duration) (verdict, output string) {
	path := filepath.Join(work, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "missing", err.Error()
	}
	if n := bytes.Count(orig, []byte(m.From)); n != 1 {
		return "stale", fmt.Sprintf("%q is in the file %d times (once expected): update the list", m.From, n)
	}
	if err := os.WriteFile(path, bytes.Replace(orig, []byte(m.From), []byte(m.To), 1), 0o644); err != nil {
		return "error", err.Error()
	}
	defer os.WriteFile(path, orig, 0o644)
	args := []string{"test", "-count=1", "-timeout=" + timeout.String()}
	if m.Run != "" {
		args = append(args, "-run="+m.Run)
	}
	args = append(args, "./"+filepath.Dir(m.File))
	cmd := exec.Command("go", args...)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	switch {
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return "invalid", tail(string(out))
	case err != nil:
		return "caught", ""
	}
	return "SURVIVED", ""
}

// copyTree copies the module (without .git) so the tree being worked in
// is never changed.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() && (rel == ".git" || rel == "bin") {
			return filepath.SkipDir
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutants:", err)
	os.Exit(2)
}
