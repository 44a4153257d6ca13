// Package app is chat's application layer: one run of chat, built from a
// typed Spec and driven the same way by every front end (the REPL, print
// mode, chat acp).
//
// A Run owns, once for all of them: opening, locking and saving the
// session (after every turn and every edit), the history edits a person
// makes (undo, retry, edit, continue, rewind), what is left of the
// interloper's input when a turn ends, checkpoints around the calls that
// may change files, the project's instructions and hooks and their trust,
// the personas and which may lead, the sandbox, the MCP servers' life, and
// the order of the start-up steps.
//
// It must not draw, parse flags or speak a protocol: it imports no Bubble
// Tea, no cobra and no front end. What it tells a person before a front end
// has a screen goes to Env.Stderr; afterwards, through the listener list as
// Notice events.
package app
