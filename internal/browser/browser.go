// Package browser opens an address in the person's browser: $BROWSER when
// it is set, else the desktop's opener. It only starts the program; it
// never waits for it, and a caller prints the address either way.
package browser

import (
	"os/exec"
	"runtime"
)

// Open starts the browser on u; getenv reads $BROWSER.
func Open(getenv func(string) string, u string) error {
	if b := getenv("BROWSER"); b != "" {
		return exec.Command(b, u).Start()
	}
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	return exec.Command(opener, u).Start()
}
