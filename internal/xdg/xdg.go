// Package xdg finds chat's folders the XDG way: $XDG_CONFIG_HOME,
// $XDG_DATA_HOME and $XDG_STATE_HOME, each with its usual place under the
// home directory when unset. It is the one place that does; it imports
// nothing and may be used by any package.
package xdg

import (
	"os"
	"path/filepath"
)

// Base directories, with where each defaults to under the home directory.
var (
	Config = base{env: "XDG_CONFIG_HOME", fallback: ".config"}
	Data   = base{env: "XDG_DATA_HOME", fallback: filepath.Join(".local", "share")}
	State  = base{env: "XDG_STATE_HOME", fallback: filepath.Join(".local", "state")}
)

type base struct{ env, fallback string }

// Chat is chat's folder under the base directory, joined with elem;
// getenv is os.Getenv or a test's stand-in. Without the variable and
// without a home directory, it is relative to the working directory.
func (b base) Chat(getenv func(string) string, elem ...string) string {
	dir := getenv(b.env)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, b.fallback)
	}
	return filepath.Join(append([]string{dir, "chat"}, elem...)...)
}
