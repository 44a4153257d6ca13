// Package lazyre compiles a regular expression the first time it is used
// instead of in package initialisation, which every run pays for before
// main (a one-line `chat -p` answer uses none of the expressions that
// parse errors or rescue tool calls written as text). It imports nothing
// from the project.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (and
// panics there, as regexp.MustCompile does, if expr is invalid) and
// returns the same *regexp.Regexp on every call.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
