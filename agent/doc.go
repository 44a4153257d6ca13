// Package agent owns the loop: one turn takes a user message in and runs
// completions and tool calls until the model answers, the person cancels,
// an error ends it, or a budget runs out (the step budget, or the turn's
// token or dollar Spend: then the synthesizer answers). It is the only emitter of listener events; the controls are the
// only way back in, read at fixed boundaries:
//
//   - Cancellable: before every streamed chunk is shown and before every
//     tool call; its context aborts the HTTP stream and running tools.
//   - StepLimit and Spend: checked before every tool call, reset at turn
//     start (a sub-agent counts against its caller's turn and resets
//     neither).
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
// of it the earlier turns are summarized (see context.go); a server's
// overflow error teaches the window, compacts and retries, and when there
// is nothing left to fold the current turn's largest tool result is cut by
// the server's own count, down to a stub. The agent tool (Delegate) runs
// tasks through sub-agents built from personas, each with a copy of its
// tool set, sharing the caller's cancellation, budgets and listeners
// (forked per sub-agent id). The person's hooks (UserPromptSubmit, Stop,
// SubagentStop, PreCompact) run at the points of the turn they name.
//
// The package must not import the UI, the config or the application layer:
// app builds agents; a front end is a listener plus the controls.
package agent
