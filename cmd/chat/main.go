// Command chat is a terminal chat REPL and agent for any OpenAI-compatible
// endpoint. `chat -p "prompt"` (or a piped stdin) answers once and exits.
package main

import (
	"errors"
	"fmt"
	"os"
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
	d := defaultDeps()
	err := newRootCmd(d, nil).Execute()
	if err == nil {
		return
	}
	// d.stderr is the sanitizing writer when stderr is a terminal.
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(d.stderr, "chat:", ee.err)
		}
		os.Exit(ee.code)
	}
	fmt.Fprintln(d.stderr, "chat:", err)
	os.Exit(1)
}
