// Package tui is the interactive terminal: one Bubble Tea program with one
// root Model that routes messages; its parts draw themselves and own their
// state (the input, the transcript's blocks, the approval prompt, a
// server's form, the task list, the picker, the mention list, the job
// follower, the usage counter). Update is split by message family (keys,
// agent events, commands).
//
// Run shows the program on one App (app.Run is chat's; cmd/chat opens it
// and wires the page of /serve, so tui imports neither agent nor another
// front end): Options holds it and what concerns the terminal alone.
// Through it the model starts turns (in commands, never in Update), tells
// the run's Loop when one begins and ends (the Loop keeps what is typed
// while it runs and gives back what it never took), cancels, sets the
// model, the system prompt or the step limit when the person asks, and
// reads what it shows. Every edit of the history goes through App.Edits,
// which saves it; the program calls no session mutator and saves nothing
// itself.
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
// /serve (Options.Share) puts the run on a page that steers the same Loop:
// what it sends at idle, and its Stop, reach the program as messages
// (app.Front) and are handled as the keys would be.
//
// Inline by default: finished blocks are printed once above the live region
// (in order, one print in flight at a time) and belong to the terminal's
// scrollback; only the live turn, the pending list, the input and the status
// bar are redrawn. Everything a model or a tool wrote is sanitized before it
// is drawn.
package tui
