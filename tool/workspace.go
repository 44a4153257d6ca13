package tool

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Workspace is the directory the tools work in. A path outside it (after
// resolving symlinks) is not refused, but needs the person's approval,
// even for a tool that only reads.
type Workspace struct {
	Root      string
	MaxOutput int // bytes a tool may return before truncation (default 64 KiB)
}

func (w Workspace) maxOutput() int {
	if w.MaxOutput > 0 {
		return w.MaxOutput
	}
	return 64 << 10
}

func (w Workspace) root() string {
	root, err := filepath.Abs(w.Root)
	if err != nil {
		return w.Root
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		return real
	}
	return root
}

// resolve turns a path the model gave into an absolute one, and says
// whether it lies outside the workspace. A path that does not exist yet
// (a file to write) is judged by its nearest existing parent.
func (w Workspace) resolve(p string) (abs string, outside bool) {
	root := w.root()
	if p == "" {
		p = "."
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	abs = p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	abs = filepath.Clean(abs)
	real := realPath(abs)
	rel, err := filepath.Rel(root, real)
	outside = err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return real, outside
}

// realPath resolves symlinks in the existing part of p.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p || dir == "" {
		return p
	}
	return filepath.Join(realPath(dir), base)
}

// outsideReview is the review of a read-only call on a path outside.
func (w Workspace) outsideReview(tool, path string) Review {
	abs, outside := w.resolve(path)
	if !outside {
		return Review{}
	}
	return Review{NeedsApproval: true, Summary: fmt.Sprintf("%s %s (outside the working directory %s)", tool, abs, w.root())}
}

// truncate cuts s to max bytes on a line boundary and says how much it cut.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n') + 1
	if cut == 0 {
		cut = max
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown; ask for a smaller range]", cut, len(s))
}

// skipDirs are never worth showing a model, ignored or not.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".hg": true, ".svn": true, "__pycache__": true}

// walkFiles walks dir like filepath.WalkDir, skipping what .gitignore
// files (from the workspace root down) exclude.
func (w Workspace) walkFiles(dir string, fn func(path string, d fs.DirEntry) error) error {
	root := w.root()
	var patterns []gitignore.Pattern
	// .gitignore files above dir, from the root down, apply too.
	if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		parts := splitPath(rel)
		for i := 0; i <= len(parts); i++ {
			patterns = append(patterns, readIgnore(filepath.Join(root, filepath.Join(parts[:i]...)), parts[:i])...)
		}
	}
	matcher := gitignore.NewMatcher(patterns)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		rel, _ := filepath.Rel(root, p)
		parts := splitPath(rel)
		if p != dir {
			if d.IsDir() && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			if len(parts) > 0 && parts[0] != ".." && matcher.Match(parts, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() && p != dir {
			if more := readIgnore(p, parts); len(more) > 0 {
				patterns = append(patterns, more...)
				matcher = gitignore.NewMatcher(patterns)
			}
		}
		return fn(p, d)
	})
}

func splitPath(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

func readIgnore(dir string, domain []string) []gitignore.Pattern {
	f, err := os.Open(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
