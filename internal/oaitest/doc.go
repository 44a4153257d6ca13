// Package oaitest is an OpenAI-compatible chat completions server for tests
// and for `make demo`. It speaks the real wire format (SSE `data:` frames, a
// usage chunk with empty choices, `[DONE]`, tool-call arguments split across
// chunks) and is as strict as the real API: a history that breaks the
// tool-call/tool-result invariant, or puts two messages of the same role in
// a row, gets the 400 the real API sends.
//
// Answers come from a script (a queue of Reply values) or, when the script
// is empty, from a Fallback function. Gate replies make races deterministic:
// the handler says when it entered and waits to be released or for the
// client to hang up, which it records.
package oaitest
