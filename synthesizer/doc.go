// Package synthesizer writes the answer of a turn whose step budget ran
// out. It makes one fresh completion with no tools: its own system prompt,
// the user's request, and the parent's history rendered as a plain-text
// transcript of evidence (so no tool definitions are needed). It shares the
// parent's Cancellable, so one Ctrl+C still stops it, and emits to the
// listener list the parent forked for it (agent id "synthesizer").
//
// Summarize is its sibling for compaction: the same kind of tool-less
// request over a transcript, folding earlier turns into a summary, in parts
// that fit the model's window; it streams nothing to the listeners.
//
// It must not run tools, loop, or change the parent's history: the parent
// appends the answer it returns.
package synthesizer
