package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/chatrepl/chat/internal/regular"
)

// reader is a tool that only reads the workspace: it asks only for paths
// outside the working directory, saying what it would do there (N's verb).
type reader[N interface {
	named
	verb() string
}] struct {
	Workspace
	described[N]
}

func (r reader[N]) Review(_ context.Context, raw json.RawMessage) (Review, error) {
	var n N
	return r.readReview(n.verb(), raw)
}

// ReadFile reads a text file, with line numbers, a slice at a time.
type ReadFile struct{ reader[readFileName] }

type pathArg struct {
	Path string `json:"path"`
}

// maxLineShown is how much of one line read_file and grep show.
const maxLineShown = 2000

type readArgs struct {
	Path          string
	Offset, Limit int
}

func (a readArgs) file() string { return a.Path }

func (r ReadFile) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	args, t, err := fileCall[readArgs](ctx, r.Workspace, raw)
	if err != nil {
		return "", err
	}
	f, err := t.open()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s does not exist; list_files shows what is there", args.Path)
	case errors.Is(err, regular.ErrDir):
		return "", fmt.Errorf("%s is a directory; use list_files", args.Path)
	case err != nil:
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file; read_file only reads text", args.Path)
	}
	offset, limit := max(args.Offset, 1), args.Limit
	if limit <= 0 {
		limit = 2000
	}
	var b strings.Builder
	var buf []byte
	n, shown := 0, 0
	for {
		line, cut, err := readLine(br, maxLineShown, buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		buf = line
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
		fmt.Fprintf(&b, "%6d\t%s", n, line)
		if cut > 0 {
			fmt.Fprintf(&b, "… [line cut: %d more bytes]", cut)
		}
		b.WriteByte('\n')
		shown++
	}
	if shown == 0 {
		return fmt.Sprintf("(%s has %d lines; nothing at offset %d)", args.Path, n, offset), nil
	}
	return Truncate(b.String(), r.maxOutput()), nil
}

// ListFiles lists a directory tree.
type ListFiles struct{ reader[listFilesName] }

const maxEntries = 2000

func (l ListFiles) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct {
		Path, Glob string
		Depth      int
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	t, root, err := l.rootOf(ctx, args.Path)
	if err != nil {
		return "", err
	}
	defer root.Close()
	dir := filepath.ToSlash(t.name)
	if st, err := root.Stat(dir); err != nil {
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
	err = walkFiles(root, dir, func(p string, d fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == dir {
			return nil
		}
		rel := relTo(dir, p)
		level := strings.Count(rel, "/") + 1
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
	return Truncate(s, l.maxOutput()), nil
}

// relTo is p (slash-separated, under dir) relative to dir.
func relTo(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, path.Clean(dir)+"/")
}

func matches(glob, name string) bool {
	ok, _ := filepath.Match(glob, name)
	return ok
}

// Builtins returns every built-in tool working in ws.
func Builtins(ws Workspace) []Tool {
	tools := []Tool{ReadFile{reader[readFileName]{Workspace: ws}}, ListFiles{reader[listFilesName]{Workspace: ws}},
		Grep{reader[grepName]{Workspace: ws}}, FetchURL{},
		WriteFile{Workspace: ws}, EditFile{Workspace: ws}, RunShell{Workspace: ws}, UpdatePlan{}}
	if ws.Jobs != nil {
		tools = append(tools, JobOutput{Jobs: ws.Jobs}, JobStop{Jobs: ws.Jobs})
	}
	return tools
}

// Confined reports whether t is one of the read tools that run freely
// inside the working directory (for /tools; the policy asks each call's
// Review, not this).
func Confined(t Tool) bool {
	switch t.(type) {
	case ReadFile, ListFiles, Grep:
		return true
	}
	return false
}
