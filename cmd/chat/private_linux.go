package main

import "golang.org/x/sys/unix"

// keepEnvironPrivate makes /proc/<chat>/environ (which holds the API key)
// unreadable to other processes of the same user, the commands chat runs
// outside the sandbox among them (inside it, Landlock already forbids it).
func keepEnvironPrivate() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
