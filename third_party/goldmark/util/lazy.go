package util

// chat: this file is not upstream's (see CHAT-PATCH.md).

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use: upstream compiled the package's
// expressions in initialisation, a cost each program linking it paid at
// start-up whether it parsed Markdown or not.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
