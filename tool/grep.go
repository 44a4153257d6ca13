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
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/internal/regular"
)

// Grep searches files for a regular expression.
type Grep struct{ reader[grepName] }

// grepLineShown is how much of a matching line is printed.
const grepLineShown = 300

// matchWindow is how much of a line is held in memory to match it; a
// longer line is matched as a stream, so no match is missed.
const matchWindow = 1 << 20

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
	t, root, err := g.rootOf(ctx, args.Path)
	if err != nil {
		return "", err
	}
	defer root.Close()
	start := filepath.ToSlash(t.name)
	st, err := root.Stat(start)
	if err != nil {
		return "", fmt.Errorf("%s does not exist", args.Path)
	}
	shown := func(p string) string {
		if t.outside {
			return filepath.Join(t.dir, p)
		}
		return p
	}
	var b strings.Builder
	found, files := 0, 0
	var buf []byte
	search := func(p string) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f, err := regular.OpenIn(root, p)
		if err != nil {
			if !st.IsDir() && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		if head, _ := r.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
			return nil // binary
		}
		files++
		for n := 1; ; n++ {
			line, long, err := nextLine(r, buf)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return nil
			}
			buf = line
			var hit bool
			if long {
				lr := &lineRunes{br: r, pre: line}
				hit = re.MatchReader(lr)
				lr.drain()
			} else {
				hit = re.Match(line)
			}
			if !hit {
				continue
			}
			text := string(line)
			if len(text) > grepLineShown || long {
				text = clip.Prefix(text, grepLineShown) + "…"
			}
			fmt.Fprintf(&b, "%s:%d: %s\n", shown(p), n, text)
			if found++; found >= limit {
				return fs.SkipAll
			}
		}
	}
	if !st.IsDir() {
		err = search(start)
	} else {
		err = walkFiles(root, start, func(p string, d fs.DirEntry) error {
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
	return Truncate(out, g.maxOutput()), nil
}

// nextLine reads a line up to matchWindow bytes; long says the line goes
// on in r past what was returned.
func nextLine(r *bufio.Reader, buf []byte) (line []byte, long bool, err error) {
	line = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			if len(line) >= matchWindow {
				return line, true, nil
			}
		case err == nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), false, nil
		case err == io.EOF && len(line) > 0:
			return line, false, nil
		default:
			return nil, false, err
		}
	}
}

// lineRunes reads the rest of a long line as runes: what was read
// already, then r up to the newline.
type lineRunes struct {
	br   *bufio.Reader
	pre  []byte
	done bool
}

func (l *lineRunes) ReadRune() (rune, int, error) {
	if len(l.pre) > 0 {
		r, n := utf8.DecodeRune(l.pre)
		l.pre = l.pre[n:]
		return r, n, nil
	}
	if l.done {
		return 0, 0, io.EOF
	}
	r, n, err := l.br.ReadRune()
	if err != nil || r == '\n' {
		l.done = true
		return 0, 0, io.EOF
	}
	return r, n, nil
}

// drain skips what is left of the line.
func (l *lineRunes) drain() {
	for !l.done {
		_, err := l.br.ReadSlice('\n')
		l.done = err != bufio.ErrBufferFull
	}
}
