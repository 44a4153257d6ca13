package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/llm"
)

func TestDiscover(t *testing.T) {
	t.Parallel()
	ollama := oaitest.New(t)
	ollama.SetModels("llama3.1:8b", "qwen2.5")
	dead := oaitest.NewServer()
	deadURL := dead.BaseURL()
	dead.Close()
	notOpenAI := httptest.NewServer(http.NotFoundHandler())
	defer notOpenAI.Close()
	cands := []llm.Candidate{{"dead", deadURL}, {"web server", notOpenAI.URL + "/v1"}, {"Ollama", ollama.BaseURL()}}
	// Generous where a server must answer (a loaded machine is slow), short
	// where none can.
	got, models, ok := llm.Discover(context.Background(), cands, 10*time.Second)
	if !ok || got.Name != "Ollama" || len(models) != 2 {
		t.Fatal(got, models, ok)
	}
	if _, _, ok := llm.Discover(context.Background(), cands[:2], 300*time.Millisecond); ok {
		t.Fatal("found a server where none answers")
	}
}

func TestContextWindow(t *testing.T) {
	t.Parallel()
	handler := func(routes map[string]string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if body, ok := routes[r.Method+" "+r.URL.Path]; ok {
				fmt.Fprint(w, body)
				return
			}
			http.NotFound(w, r)
		}))
	}
	tests := []struct {
		name   string
		routes map[string]string
		model  string
		want   int
		source string
	}{
		{"openrouter list", map[string]string{"GET /v1/models": `{"data":[{"id":"x/y","context_length":65536}]}`}, "x/y", 65536, "the server's model list"},
		{"vllm list", map[string]string{"GET /v1/models": `{"data":[{"id":"m","max_model_len":32768}]}`}, "m", 32768, "the server's model list"},
		{"llama.cpp props", map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":2048}}`}, "any", 2048, "llama.cpp /props"},
		{"ollama show, no num_ctx", map[string]string{"POST /api/show": `{"model_info":{"llama.context_length":131072}}`}, "llama3.1", 4096, "Ollama's default context"},
		// As recorded from Ollama (../shared/fixtures/ollama): the training
		// size in model_info, the window it runs in parameters.
		{"ollama num_ctx", map[string]string{"POST /api/show": `{"parameters":"num_ctx                        2048\nstop                           \"<|im_end|>\"","model_info":{"qwen3.context_length":16384}}`}, "scripted-tiny", 2048, "Ollama num_ctx"},
		{"table", nil, "openai/gpt-4o-mini-2024-07-18", 128000, "the built-in table"},
		{"unknown", nil, "my-finetune", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := handler(tt.routes)
			defer srv.Close()
			n, src := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: tt.model}).ContextWindow(context.Background(), tt.model)
			if n != tt.want || src != tt.source {
				t.Fatalf("%d from %q", n, src)
			}
		})
	}
}
