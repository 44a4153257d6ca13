// Command chat is a terminal chat REPL and agent for any OpenAI-compatible
// endpoint. `chat -p "prompt"` (or a piped stdin) answers once and exits.
package main

import (
	"errors"
	"fmt"
	"os"

	// First, so the pages the rest of start-up reads are mapped in bulk.
	_ "github.com/chatrepl/chat/internal/prefault"
	"github.com/chatrepl/chat/tool/sandbox"
)

// exitError ends the process with code after the error was already shown
// (by the listeners); any other error exits 1 after "chat: " and its text.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	// A box is chat re-executed: it confines itself and runs commands.
	sandbox.ServeIfAsked()
	keepEnvironPrivate()
	d := defaultDeps()
	err := newRootCmd(d, nil).Execute()
	if err == nil {
		return
	}
	// d.stderr is the sanitizing writer when stderr is a terminal.
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	fmt.Fprintln(d.stderr, "chat:", err)
	os.Exit(1)
}
