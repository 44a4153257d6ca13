// Package config turns the config file, the environment and the command
// line flags into one validated Config (precedence: flags > env > file >
// defaults). It reads; it never writes a secret anywhere, and Show never
// prints one. It imports nothing from the project.
package config
