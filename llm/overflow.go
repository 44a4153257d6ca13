package llm

import (
	"errors"
	"strconv"
	"strings"

	"github.com/chatrepl/chat/internal/lazyre"
)

// ErrContextExceeded matches (errors.Is) a server's refusal of a request
// larger than the model's context window, in the shapes real servers use:
// OpenAI's context_length_exceeded, llama.cpp's exceed_context_size_error
// (a 400, or a 500 "Context size has been exceeded." on some paths),
// vLLM's and OpenRouter's "maximum context length is N tokens", Ollama's
// "exceeds the context length".
var ErrContextExceeded = errors.New("the request is larger than the model's context window")

// Is makes errors.Is(err, ErrContextExceeded) true for an overflow.
func (e *APIError) Is(target error) bool { return target == ErrContextExceeded && e.overflow() }

func (e *APIError) overflow() bool {
	return isContextOverflow(strings.ToLower(e.Message + " " + e.Code + " " + e.Type))
}

func isContextOverflow(msg string) bool {
	if strings.Contains(msg, "context_length_exceeded") || strings.Contains(msg, "exceed_context_size") {
		return true
	}
	if !strings.Contains(msg, "context") {
		return strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "too many tokens")
	}
	for _, w := range []string{"length", "exceed", "too long", "window", "size"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// windowInMessage finds the window in the words servers use for it.
var windowInMessage = lazyre.New(`(?i)(?:maximum context length is|context size \(|context length of|context window of|context window is)\s*(\d+)`)

// ContextWindowIn is the context size a context-overflow error names, 0
// when err is not one or names none.
func ContextWindowIn(err error) int {
	var api *APIError
	if !errors.As(err, &api) || !api.overflow() {
		return 0
	}
	if api.Window > 0 {
		return api.Window
	}
	if m := windowInMessage().FindStringSubmatch(api.Message); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// countedInMessage finds the request's size in an overflow message.
var countedInMessage = lazyre.New(`(?i)request \((\d+) tokens\)`)

// PromptTokensIn is the size of the refused request as the server counted
// it (llama.cpp's n_prompt_tokens, "request (N tokens) exceeds …"), 0 when
// err is not an overflow or names none.
func PromptTokensIn(err error) int {
	var api *APIError
	if !errors.As(err, &api) || !api.overflow() {
		return 0
	}
	if api.Counted > 0 {
		return api.Counted
	}
	if m := countedInMessage().FindStringSubmatch(api.Message); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}
