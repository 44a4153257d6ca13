// Package session owns conversation history: the message types, the Session
// that holds them (with its OnMessage hooks and mutators), repair of broken
// tool exchanges (FillOrphans, PruneOrphans), merging of consecutive
// same-role messages at send time, and compaction records: a summary
// message (RoleSummary) stands, in what is sent (Sent), for everything
// before it, while the history and its file keep every message.
//
// The invariant every function here keeps: each tool call of an assistant
// message is answered by exactly one Tool message before the next non-tool
// message, and no Tool message exists without its call. Validate checks it.
//
// OnMessage hooks fire only for Assistant and Tool messages produced by the
// agent (the persistence seam); inputs fire OnInput; healing placeholders
// and mutators fire neither (they bump Revision, so a store rewrites).
// MarkStarted records that an approved call began to run (OnStart hooks:
// a "started" line in the file, a checkpoint), so a call that had started
// when chat stopped is never run again (SplitStarted). The mutators are for
// the application layer (app.Edits, rewind), never for a front end.
//
// The store keeps each session as a JSON-lines file, fsynced as messages
// arrive (inputs in the background, so a request need not wait for the
// disk; Settle waits for them, and the agent settles before it shows an
// answer), rewritten atomically after other changes; loading drops a torn
// last line and skips damaged lines with a warning; Lock keeps two chats
// from writing one session. The package imports nothing of chat but
// internal leaves (atomicfile, clip, regular, xdg) and does no network IO.
package session
