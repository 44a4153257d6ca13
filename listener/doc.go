// Package listener owns the normalized events an agent emits, the Listener
// interface, the fan-out List (ForSubAgent forks it per sub-agent) and the
// stock listeners: Terminal (print mode), JSONL (--json), TokenLog (-v),
// Recorder (tests), Func, and RateLimited, which wraps any of them to join
// deltas to one delivery a frame without dropping or reordering anything.
// Sanitizer and SafeWriter make what a model or a tool wrote inert before
// it reaches a terminal.
//
// The agent is the only emitter. Listeners only consume: they never call back
// into the agent, never block it for long and never change history. The
// package imports nothing of chat but internal leaves (clip, textbuf), so any
// front end (the TUI, print mode, an editor, a log) is one more Listener.
//
// Every event carries an Origin: the emitting agent's id ("" for the main
// agent, "synthesizer", "researcher 0" …) and the turn number (a
// sub-agent's events carry its caller's), so a consumer can ignore a late
// event from a turn it already gave up on.
package listener
