package llm

import "testing"

// TestMaxTokensField: OpenAI's own API gets max_completion_tokens (its
// reasoning models refuse max_tokens); every other server max_tokens.
func TestMaxTokensField(t *testing.T) {
	t.Parallel()
	for url, completion := range map[string]bool{
		"https://api.openai.com/v1":                  true,
		"https://x.openai.azure.com/openai/v1":       true,
		"http://localhost:8080/v1":                   false,
		"https://openrouter.ai/api/v1":               false,
		"https://api.openai.com.evil.example.com/v1": false,
	} {
		w := New(Config{BaseURL: url, Model: "m"}).wireRequest(Request{MaxTokens: 100})
		//lint:ignore SA1019 the field under test
		got := w.MaxTokens
		if (w.MaxCompletionTokens == 100) != completion || (got == 100) == completion {
			t.Errorf("%s: max_tokens %d, max_completion_tokens %d", url, got, w.MaxCompletionTokens)
		}
	}
}
