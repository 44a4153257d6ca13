// Package lsp gives the agent the compiler's verdict on its edits: a
// language-server client (go.lsp.dev's protocol and JSON-RPC packages)
// that starts the servers of the workspace's languages lazily, on the
// first edit of a file of theirs, syncs the files a call changed, waits a
// bounded while for their diagnostics to settle and says what they are.
//
// It owns which servers exist (found on PATH, or configured), their life
// (started once per run, dropped with one notice when they fail or hang,
// stopped with the run) and the last diagnostics each file got. It must
// not start a process itself: the run hands it a Starter that runs the
// server where commands run (in the sandbox), and it must never make a
// turn wait longer than its bound. It imports only tool (for its
// lsp_definition and lsp_references tools).
package lsp
