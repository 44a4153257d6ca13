// Package agent owns the loop: one turn takes a user message in and runs
// completions and tool calls until the model answers, the person cancels,
// an error ends it, or the step budget runs out (then the synthesizer
// answers). It is the only emitter of listener events; the controls are the
// only way back in, read at fixed boundaries:
//
//   - Cancellable: before every streamed chunk is shown and before every
//     tool call; its context aborts the HTTP stream and running tools.
//   - StepLimit: ticked before every tool call, reset at turn start.
//   - Interloper: drained once the tool results of an assistant message are
//     all in (so history keeps its invariant), and when the model answers
//     without tools (the input then starts another round of the same turn).
//
// Turns are values: NewTurn numbers a turn before it emits anything (every
// event, and the context its tools see, carries the number), and its
// context derives from the caller's, so cancelling the caller's context
// cancels the turn. Run and Start are NewTurn run at once, in place or in
// the background.
//
// Whatever ends a turn, history is left valid for the next request: orphan
// tool calls get the interrupted placeholder (FillOrphans), a partial
// answer already shown is kept, marked interrupted, and a question the turn
// never answered is marked unanswered (kept, never sent again on its own).
//
// Before each completion the turn fits the context window: past CompactAt
// of it the earlier turns are summarized (see context.go), and a server's
// overflow error compacts and retries once. The agent tool (Delegate) runs
// tasks through sub-agents built from personas, sharing the caller's
// cancellation and listeners (forked per sub-agent id).
//
// The package must not import the UI or the config: a front end is a
// listener plus the controls.
package agent
