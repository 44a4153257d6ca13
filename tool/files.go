package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ReadFile reads a text file, with line numbers, a slice at a time.
type ReadFile struct{ Workspace }

func (ReadFile) Name() string { return "read_file" }
func (ReadFile) Description() string {
	return "Read a text file. Lines are numbered. Use offset and limit to read a long file in parts."
}
func (ReadFile) Parameters() json.RawMessage {
	return Object([]string{"path"}, map[string]*Schema{
		"path":   Prop("string", "file path, relative to the working directory"),
		"offset": Prop("integer", "first line to read, 1-based (default 1)"),
		"limit":  Prop("integer", "how many lines to read (default 2000)"),
	})
}
func (ReadFile) Timeout() time.Duration { return 10 * time.Second }

type pathArg struct {
	Path string `json:"path"`
}

// Review asks only for paths outside the working directory.
func (r ReadFile) Review(raw json.RawMessage) (Review, error) {
	var a pathArg
	_ = json.Unmarshal(raw, &a)
	return r.outsideReview("read", a.Path), nil
}

func (r ReadFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Path          string
		Offset, Limit int
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	path, _ := r.resolve(args.Path)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist; list_files shows what is there", args.Path)
		}
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s is a directory; use list_files", args.Path)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file; read_file only reads text", args.Path)
	}
	offset, limit := max(args.Offset, 1), args.Limit
	if limit <= 0 {
		limit = 2000
	}
	var b strings.Builder
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n, shown := 0, 0
	for sc.Scan() {
		n++
		if n < offset {
			continue
		}
		if shown == limit || b.Len() > r.maxOutput() {
			b.WriteString(fmt.Sprintf("[more lines follow; read on with offset %d]\n", n))
			break
		}
		if n%512 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, sc.Text())
		shown++
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if shown == 0 {
		return fmt.Sprintf("(%s has %d lines; nothing at offset %d)", args.Path, n, offset), nil
	}
	return truncate(b.String(), r.maxOutput()), nil
}

// ListFiles lists a directory tree.
type ListFiles struct{ Workspace }

func (ListFiles) Name() string { return "list_files" }
func (ListFiles) Description() string {
	return "List files under a directory (directories end in /), skipping what .gitignore excludes. Optional glob filter on file names and a depth limit."
}
func (ListFiles) Parameters() json.RawMessage {
	return Object(nil, map[string]*Schema{
		"path":  Prop("string", "directory, relative to the working directory (default .)"),
		"glob":  Prop("string", "only file names matching this pattern, e.g. *.go"),
		"depth": Prop("integer", "how many levels to descend (default 3)"),
	})
}
func (ListFiles) Timeout() time.Duration { return 20 * time.Second }

// Review asks only for paths outside the working directory.
func (l ListFiles) Review(raw json.RawMessage) (Review, error) {
	var a pathArg
	_ = json.Unmarshal(raw, &a)
	return l.outsideReview("list", a.Path), nil
}

const maxEntries = 2000

func (l ListFiles) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Path, Glob string
		Depth      int
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	root, _ := l.resolve(args.Path)
	if st, err := os.Stat(root); err != nil {
		return "", fmt.Errorf("%s does not exist", args.Path)
	} else if !st.IsDir() {
		return "", fmt.Errorf("%s is a file; use read_file", args.Path)
	}
	if args.Glob != "" {
		if _, err := filepath.Match(args.Glob, "x"); err != nil {
			return "", fmt.Errorf("bad glob %q: %v", args.Glob, err)
		}
	}
	depth := args.Depth
	if depth <= 0 {
		depth = 3
	}
	var out []string
	more := false
	err := l.walkFiles(root, func(p string, d fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		level := strings.Count(rel, string(filepath.Separator)) + 1
		if d.IsDir() {
			if args.Glob == "" {
				out = append(out, rel+"/")
			}
			if level >= depth {
				return fs.SkipDir
			}
		} else if args.Glob == "" || matches(args.Glob, d.Name()) {
			out = append(out, rel)
		}
		if len(out) >= maxEntries {
			more = true
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(out) == 0 {
		return "(no files)", nil
	}
	s := strings.Join(out, "\n")
	if more {
		s += fmt.Sprintf("\n[listing stopped at %d entries; narrow the path or glob]", maxEntries)
	}
	return truncate(s, l.maxOutput()), nil
}

func matches(glob, name string) bool {
	ok, _ := filepath.Match(glob, name)
	return ok
}

// Builtins returns every built-in tool working in ws.
func Builtins(ws Workspace) []Tool {
	return []Tool{ReadFile{ws}, ListFiles{ws}, Grep{ws}, FetchURL{}, WriteFile{ws}, EditFile{ws}, RunShell{ws}}
}
