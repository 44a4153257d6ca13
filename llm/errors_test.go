package llm

import (
	"strings"
	"testing"
	"time"
)

func TestErrorAdvice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e          APIError
		advice     string
		retry      bool
		retryAfter time.Duration
	}{
		{APIError{Status: 401}, "refused the API key that was sent; check OPENAI_API_KEY", false, 0},
		{APIError{Status: 401, NoKey: true}, "wants an API key and none is set; set OPENAI_API_KEY", false, 0},
		{APIError{Status: 404, Message: "The model `x` does not exist"}, "--model", false, 0},
		{APIError{Status: 404, Message: "Not Found"}, "ends in /v1", false, 0},
		{APIError{Status: 400, Message: "This model's maximum context length is 8192 tokens"}, "context window", false, 0},
		{APIError{Status: 429, Message: "Please try again in 5.289s."}, "try again in 5s", true, 5289 * time.Millisecond},
		{APIError{Status: 429, Message: "You exceeded your current quota", Code: "insufficient_quota"}, "out of credit", false, 0},
		{APIError{Status: 503}, "try again later", true, 0},
	}
	for _, tt := range tests {
		e := tt.e.withRetryHint()
		if !strings.Contains(e.Error(), tt.advice) || e.Retryable() != tt.retry || e.RetryAfter != tt.retryAfter {
			t.Errorf("%+v: %q retryable=%v after=%v", tt.e, e.Error(), e.Retryable(), e.RetryAfter)
		}
	}
}

func TestBodyErrorShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`{"error":{"message":"m","type":"t","code":"c"}}`, "m"},
		{`{"object":"error","message":"vllm says","type":"BadRequestError","code":400}`, "vllm says"},
		{`{"error":"model 'x' not found"}`, "model 'x' not found"},
		{`{"detail":"Not authenticated"}`, "Not authenticated"},
		{`<html>Bad Gateway</html>`, "<html>Bad Gateway</html>"},
		{`{"error":{"code":429,"message":"Provider returned error","metadata":{"raw":"upstream busy"}}}`, "Provider returned error: upstream busy"},
		// Ollama, recorded (../shared/fixtures/ollama/04): llama-server's
		// error body as the message.
		{`{"error":{"message":"{\"error\":{\"code\":400,\"message\":\"request (5804 tokens) exceeds the available context size (2048 tokens), try increasing it\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":5804,\"n_ctx\":2048}}","type":"invalid_request_error","param":null,"code":null}}`,
			"request (5804 tokens) exceeds the available context size (2048 tokens), try increasing it"},
	}
	for _, tt := range tests {
		if got := bodyError([]byte(tt.body)).Message; got != tt.want {
			t.Errorf("%s: %q, want %q", tt.body, got, tt.want)
		}
		if e := bodyError([]byte(tt.body)); strings.Contains(tt.body, "n_ctx") && (e.Window != 2048 || e.Type != "exceed_context_size_error") {
			t.Errorf("the wrapped error's window and type: %+v", e)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := map[string][]string{"Retry-After": {"Thu, 01 Jan 2026 00:00:07 GMT"}}
	if got := parseRetryAfter(h, now); got != 7*time.Second {
		t.Fatal(got)
	}
	h = map[string][]string{"Retry-After": {"2"}, "Retry-After-Ms": {"150"}}
	if got := parseRetryAfter(h, now); got != 150*time.Millisecond {
		t.Fatal(got)
	}
}
