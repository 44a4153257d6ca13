// Package control holds the three signals a host uses to steer a running
// agent: StepLimit (a per-turn budget of tool calls), Cancellable (stop the
// turn now) and Interloper (text typed while the turn runs).
//
// The host flips them from any goroutine; the agent reads them only at fixed
// boundaries (before each tool call, on every streamed chunk, after tool
// results). Controls never call back into the agent and never emit events:
// they are plain, concurrency-safe state. This package imports nothing from
// the project.
package control
