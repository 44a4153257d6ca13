// Package llm is the one place that talks HTTP to a model. It wraps
// go-openai: a Request (history, tool specs, options) goes out, and a stream
// of normalized Chunks (text, reasoning, tool-call deltas, usage, finish)
// comes back through a callback, then the assembled Response.
// Text and reasoning chunks that were read from the network together are
// joined into one (never waiting for the next to arrive), and a stream
// that arrives faster than it is consumed is read at most once a
// millisecond, so more of it is read together (a slower one as it comes).
//
// It owns retries (429 with Retry-After, 5xx and connection errors before
// the first token, at most MaxRetries, each announced to the caller), the
// tool-call delta assembly, and the error messages a person reads (status,
// the server's words, and what to do).
//
// It also finds local servers (Discover) and a model's context window
// (ContextWindow); the probes that are not OpenAI endpoints (llama.cpp's
// /props, Ollama's /api/show) are plain GETs and POSTs with a short timeout.
//
// It must not know about agents, listeners or the UI, and it never logs or
// returns the API key.
package llm
