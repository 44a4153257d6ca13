package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Grep searches files for a regular expression.
type Grep struct{ Workspace }

func (Grep) Name() string { return "grep" }
func (Grep) Description() string {
	return "Search files for a regular expression (Go RE2 syntax), skipping what .gitignore excludes and binary files. Prints path:line: text."
}
func (Grep) Parameters() json.RawMessage {
	return Object([]string{"pattern"}, map[string]*Schema{
		"pattern":     Prop("string", "regular expression"),
		"path":        Prop("string", "file or directory to search (default .)"),
		"glob":        Prop("string", "only files whose name matches, e.g. *.go"),
		"ignore_case": Prop("boolean", "match without regard to case"),
		"max_matches": Prop("integer", "stop after this many matches (default 200)"),
	})
}
func (Grep) Timeout() time.Duration { return 30 * time.Second }

// Review asks only for paths outside the working directory.
func (g Grep) Review(raw json.RawMessage) (Review, error) {
	var a pathArg
	_ = json.Unmarshal(raw, &a)
	return g.outsideReview("search", a.Path), nil
}

const maxLineShown = 300

func (g Grep) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Pattern, Path, Glob string
		IgnoreCase          bool `json:"ignore_case"`
		MaxMatches          int  `json:"max_matches"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	expr := args.Pattern
	if args.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("bad regular expression %q: %v", args.Pattern, err)
	}
	limit := args.MaxMatches
	if limit <= 0 {
		limit = 200
	}
	start, _ := g.resolve(args.Path)
	st, err := os.Stat(start)
	if err != nil {
		return "", fmt.Errorf("%s does not exist", args.Path)
	}
	base := g.root()
	var b strings.Builder
	found, files := 0, 0
	search := func(p string) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		if head, _ := r.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
			return nil // binary
		}
		files++
		rel, err := filepath.Rel(base, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = p
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if !re.MatchString(line) {
				continue
			}
			if len(line) > maxLineShown {
				line = line[:maxLineShown] + "…"
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", rel, n, line)
			if found++; found >= limit {
				return fs.SkipAll
			}
		}
		return nil
	}
	if !st.IsDir() {
		err = search(start)
	} else {
		err = g.walkFiles(start, func(p string, d fs.DirEntry) error {
			if d.IsDir() || (args.Glob != "" && !matches(args.Glob, d.Name())) || !d.Type().IsRegular() {
				return nil
			}
			return search(p)
		})
	}
	if err != nil && err != fs.SkipAll {
		return "", err
	}
	if found == 0 {
		return fmt.Sprintf("no matches for %q in %d files", args.Pattern, files), nil
	}
	out := b.String()
	if found >= limit {
		out += fmt.Sprintf("[stopped at %d matches; narrow the pattern, path or glob]\n", limit)
	}
	return truncate(out, g.maxOutput()), nil
}
