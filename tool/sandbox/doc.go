// Package sandbox confines the commands the agent runs with the kernel.
//
// A box is chat itself, re-executed once per run (ServeIfAsked at the top
// of main), built by the strongest engine that works here: bubblewrap
// when it is installed, else namespaces chat makes itself (through a
// launcher: chat is not dumpable, and a child it cloned into a user
// namespace could not be given its uid map), else Landlock alone. Inside,
// the box empties the capability bounding set, restricts itself with
// Landlock (reads anywhere but the hidden paths; writes only under the
// writable roots) and a seccomp filter (no unix sockets, no typing into
// a terminal, no ptrace, mounts, namespaces, keyrings, BPF, io_uring or
// device nodes; no socket at all without a network namespace), and then
// starts every command, each in a session of its own. Children inherit
// all of it, and nothing a command does can loosen it. chat itself is
// never restricted.
//
// Protected paths (.git at any depth, .chat, .envrc) are read-only in the
// box; FindProtected looks for them, and the caller starts a new box when
// they change. GitGuard undoes what a command added that makes git run a
// program, judged by git itself against an allow list of keys (gitkeys.go);
// Busy and Signal see and stop, from outside, what still runs in a box.
// ProbeEngines tries real escapes in a box of each engine.
//
// The box dies with chat (Pdeathsig), and as the first process of its PID
// namespace it takes every command's children with it. Mode Off gets a
// box too, with only the PID namespace when chat is root (nothing is
// confined, but nothing a command started outlives chat); for other users
// it has no namespace (a user namespace would break sudo).
//
// This package must not decide what needs a person: it confines; the tool
// package's policy asks. It imports nothing from the project.
package sandbox
