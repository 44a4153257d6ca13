// Package control holds the signals a host uses to steer a running agent:
// StepLimit (a per-turn budget of tool calls; a sub-agent's is Within its
// caller's), Spend (a per-turn budget of tokens and dollars, shared by the
// sub-agents of the turn), Cancellable (stop the turn now) and Interloper
// (text sent while the turn runs, taken back by id until it is drained).
//
// The host flips them from any goroutine; the agent reads them only at fixed
// boundaries (before each tool call, on every streamed chunk, after tool
// results). Controls never call back into the agent and never emit events:
// they are plain, concurrency-safe state. This package imports nothing from
// the project.
package control
