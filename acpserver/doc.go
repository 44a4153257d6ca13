// Package acpserver is chat's second front end: the Agent Client Protocol
// (JSON-RPC on stdio, agentclientprotocol.com) that editors such as Zed,
// JetBrains IDEs and Neovim plugins use to drive an agent.
//
// It owns the protocol's side of a session: a prompt is a turn run by the
// run's app.Loop (RunTurns; session/cancel and closing the session are
// Loop.Stop, the _chat/steer extension is Loop.Steer), the events become
// session/update notifications through one listener per session, and
// approvals and a server's questions become session/request_permission
// requests.
//
// It must not wire an agent itself: each session is an app.Run, built as
// print mode's and the REPL's are (config, tools, sandbox, hooks, sessions
// on disk, saved at every turn's end), opened by ServeRuns with app.Open
// from the command line's spec in the session's folder (Options.Open);
// what a turn never took goes back to the editor, as the REPL puts it back
// in its input. It must not import agent, and must not
// write anywhere but the connection it serves: in `chat acp` stdout is the
// protocol.
package acpserver
