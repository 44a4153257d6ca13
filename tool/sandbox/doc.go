// Package sandbox confines the commands the agent runs with the kernel.
//
// A box is chat itself, re-executed once per run (ServeIfAsked at the top
// of main): it enters its own mount, network, PID and IPC namespaces where
// the kernel allows them, makes the protected folders (.git, .chat)
// read-only and hides the folders that hold credentials, restricts itself
// with Landlock (reads anywhere; writes only under the writable roots; no
// TCP where there is no private network; no signals or abstract sockets
// out), and then starts every command it is sent. Children inherit all of
// it, and nothing a command does can loosen it: Landlock and the mounts
// cannot be undone from inside. chat itself is never restricted.
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
