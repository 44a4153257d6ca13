// Package project reads what a project says to the agent: its
// instructions files (AGENTS.md, else CLAUDE.md) from the repository root
// down to the working directory. It reads only; it never runs anything
// and never writes.
package project
