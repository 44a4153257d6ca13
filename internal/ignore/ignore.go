// Package ignore reads .gitignore files (and .git/info/exclude) into
// go-git's patterns: one reading for the file tools and the checkpoints.
package ignore

import (
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxSize bounds what is read of one ignore file.
const maxSize = 1 << 20

// Patterns parses an ignore file's lines; domain is the folder it lies
// in, as path parts from the root.
func Patterns(r io.Reader, domain []string) []gitignore.Pattern {
	b, err := io.ReadAll(io.LimitReader(r, maxSize))
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
