// Package config turns the config file, the environment and the command
// line flags into one validated Config (precedence: flags > env > file >
// defaults), and reads a project's hooks file (LoadHooks) the same way.
//
// It writes only the person's own config file, when asked (Init, AddMCP,
// RemoveMCP: atomically, keeping what else the file says); it never writes
// a secret anywhere, and Show never prints one. It imports nothing of chat
// but internal leaves (xdg, steps, atomicfile).
package config
