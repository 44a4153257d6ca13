// Package tui is the interactive terminal: one Bubble Tea program with one
// root Model. Transcript blocks, the pending list, the input and the status
// bar are plain structs that render to a width; Update is split by message
// family (keys, agent events, commands).
//
// RunSession is the REPL as a front end: it opens an app.Run from a spec
// (cmd/chat turns the flags into it) and runs the program on it. The
// program drives one App (app.Run is chat's): Options holds it and what
// concerns the terminal alone. Through it the model starts turns on the
// agent (in commands, never in Update), flips its controls (Cancel, the
// Interloper, the step limit), sets the model or the system prompt when
// the person asks, and reads what it shows: events, and the agent's model,
// context report and messages for the status bar, /context and /resume.
// Every edit of the history goes through App.Edits, which saves it; the
// program calls no session mutator and saves nothing itself. What a turn
// never took comes back through app.Leftovers.
//
// The agent reaches the program through one bridge: a listener that hands
// every event to Program.Send, behind a RateLimited listener that joins
// deltas to at most one delivery a frame and never drops or reorders
// anything.
//
// Approvals is the run's Approver: it asks in the program and waits for the
// answer on the agent's goroutine (so tui also imports tool, for the request
// it shows). A question another front end answered first (a page on the
// same session, /serve) is withdrawn: its context ends with
// tool.AnsweredElsewhere, and the program says where it was answered.
//
// /serve hands a page (Options.Share) the program as its app.Driver: what
// the page sends, stops or edits arrives as messages and is handled as the
// keys would be; the page is told the pending list after every update.
//
// Inline by default: finished blocks are printed once above the live region
// (in order, one print in flight at a time) and belong to the terminal's
// scrollback; only the live turn, the pending list, the input and the status
// bar are redrawn. Everything a model or a tool wrote is sanitized before it
// is drawn.
package tui
