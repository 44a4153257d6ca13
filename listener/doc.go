// Package listener owns the normalized events an agent emits, the Listener
// interface, the fan-out List and the stock listeners (Terminal, Recorder,
// JSONL, TokenLog, RateLimited).
//
// The agent is the only emitter. Listeners only consume: they never call back
// into the agent, never block it for long and never change history. The
// package imports nothing from the project, so any front end (the TUI, print
// mode, a log) is one more Listener.
//
// Every event carries an Origin: the emitting agent's id ("" for the main
// agent, "synthesizer", "researcher 0" …) and the turn number, so a consumer
// can ignore a late event from a turn it already gave up on.
package listener
