package llm

import (
	"context"
	"net/http"
	"time"
)

// Candidate is a local server chat may find running.
type Candidate struct{ Name, BaseURL string }

// LocalServers are probed, in this order, when nothing is configured.
var LocalServers = []Candidate{
	{"Ollama", "http://localhost:11434/v1"},
	{"LM Studio", "http://localhost:1234/v1"},
	{"llama.cpp", "http://localhost:8080/v1"},
}

// Discover probes the candidates at once (GET /models, each within
// timeout) and returns the first in list order that answered, with its
// models. ok is false when none did.
func Discover(ctx context.Context, candidates []Candidate, timeout time.Duration) (found Candidate, models []string, ok bool) {
	type answer struct {
		models []string
		ok     bool
	}
	answers := make([]chan answer, len(candidates))
	for i, c := range candidates {
		answers[i] = make(chan answer, 1)
		go func() {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			client := New(Config{BaseURL: c.BaseURL, MaxRetries: -1, HTTPClient: &http.Client{Timeout: timeout}})
			ms, err := client.Models(ctx)
			answers[i] <- answer{ms, err == nil}
		}()
	}
	for i, ch := range answers {
		if a := <-ch; a.ok {
			return candidates[i], a.models, true
		}
	}
	return Candidate{}, nil, false
}
