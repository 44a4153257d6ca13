// Command chat is a terminal chat REPL and agent for any OpenAI-compatible
// endpoint. `chat -p "prompt"` (or a piped stdin) answers once and exits.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/chatrepl/chat/listener"
)

// exitError carries a process exit code up to main.
type exitError struct {
	code int
	err  error // already reported when nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func main() {
	err := newRootCmd(defaultDeps(), nil).Execute()
	if err == nil {
		return
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "chat:", listener.VisibleString(ee.err.Error()))
		}
		os.Exit(ee.code)
	}
	fmt.Fprintln(os.Stderr, "chat:", listener.VisibleString(err.Error()))
	os.Exit(1)
}
