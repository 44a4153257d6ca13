package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/chatrepl/chat/internal/regular"
)

// A hook may run outside the box (sandbox = "off", or no box), and the
// script it names may lie in the working directory, where a boxed
// command can rewrite it. So a hook
// runs only while each such script is what the person trusted: its
// SHA-256 is pinned when they trust it, and a changed script asks again
// (or is refused where no one can be asked).

// maxScript bounds what is hashed of one script.
const maxScript = 16 << 20

// Scripts lists the files under dir that command names: each word of it
// that is a path (relative to dir, absolute, or under $CHAT_PROJECT_DIR)
// to a regular file inside dir. What a script reads on its own (a
// Makefile, an imported module) is not seen: keep hook scripts outside
// the working directory to have them out of the box's reach.
func Scripts(command, dir string) []string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		for _, w := range call.Args {
			p, ok := wordPath(w, dir)
			if !ok || seen[p] {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				seen[p] = true
				out = append(out, p)
			}
		}
		return true
	})
	return out
}

// wordPath is the path a word names when it is literal (quotes and
// $CHAT_PROJECT_DIR allowed) and lies inside dir.
func wordPath(w *syntax.Word, dir string) (string, bool) {
	var b strings.Builder
	if !literal(w.Parts, dir, &b) || b.Len() == 0 {
		return "", false
	}
	p := b.String()
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

func literal(parts []syntax.WordPart, dir string, b *strings.Builder) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if !literal(x.Parts, dir, b) {
				return false
			}
		case *syntax.ParamExp:
			if x.Param == nil || (x.Param.Value != "CHAT_PROJECT_DIR" && x.Param.Value != "PWD") ||
				x.Exp != nil || x.Repl != nil || x.Slice != nil || x.Index != nil || x.Length || x.Excl {
				return false
			}
			b.WriteString(dir)
		default:
			return false
		}
	}
	return true
}

// Digest is the SHA-256 of a script's content ("" when it cannot be read:
// gone, not a regular file, or too large).
func Digest(path string) string {
	f, err := regular.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if n, err := io.Copy(h, io.LimitReader(f, maxScript+1)); err != nil || n > maxScript {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
