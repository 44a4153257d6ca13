package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ContextWindow finds the model's context size in tokens: what the server
// reports (its /models entry: context_length, max_model_len, meta.n_ctx;
// llama.cpp's /props; Ollama's /api/show), else a table of well-known
// models. source says where it came from; 0 means unknown. These probes
// are not part of the OpenAI API, so they use plain HTTP through the
// client's transport, with a short timeout, and never fail a run.
func (c *Client) ContextWindow(ctx context.Context, model string) (tokens int, source string) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel() // the probes still out are not needed once one answered
	// The three are asked at once and their answers taken in this order:
	// one after another, they were three round trips before a first
	// request that waits for the window.
	probes := []func(context.Context, string) (int, string){c.fromModelList, c.fromProps, c.fromOllamaShow}
	answers := make([]chan int, len(probes))
	sources := make([]string, len(probes))
	for i, probe := range probes {
		answers[i] = make(chan int, 1)
		go func() {
			n, src := probe(ctx, model)
			sources[i] = src
			answers[i] <- n
		}()
	}
	for i := range probes {
		if n := <-answers[i]; n > 0 {
			return n, sources[i]
		}
	}
	if n := KnownContextWindow(model); n > 0 {
		return n, "the built-in table"
	}
	return 0, ""
}

// fromProps reads llama.cpp's /props.
func (c *Client) fromProps(ctx context.Context, _ string) (int, string) {
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx int `json:"n_ctx"`
	}
	if c.getJSON(ctx, http.MethodGet, c.root()+"/props", nil, &props) {
		if n := max(props.Settings.NCtx, props.NCtx); n > 0 {
			return n, "llama.cpp /props"
		}
	}
	return 0, ""
}

// fromOllamaShow reads Ollama's /api/show.
func (c *Client) fromOllamaShow(ctx context.Context, model string) (int, string) {
	var show struct {
		ModelInfo  map[string]any `json:"model_info"`
		Parameters string         `json:"parameters"`
	}
	body, _ := json.Marshal(map[string]string{"model": model})
	if !c.getJSON(ctx, http.MethodPost, c.root()+"/api/show", body, &show) {
		return 0, ""
	}
	// The window Ollama runs is num_ctx, not the training size in
	// model_info; over it, Ollama drops the oldest messages without a
	// word. Without num_ctx it runs its default, which the training size
	// only bounds.
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n, "Ollama num_ctx"
			}
		}
	}
	for k, v := range show.ModelInfo {
		if f, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") && f > 0 {
			return min(int(f), ollamaDefaultContext), "Ollama's default context"
		}
	}
	return 0, ""
}

// root is the server's address without the /v1 of the OpenAI API.
func (c *Client) root() string { return strings.TrimSuffix(c.cfg.BaseURL, "/v1") }

// ollamaDefaultContext is the window Ollama runs a model with when
// nothing sets num_ctx (OLLAMA_CONTEXT_LENGTH changes it; so does
// context_window in chat's config).
const ollamaDefaultContext = 4096

func (c *Client) fromModelList(ctx context.Context, model string) (int, string) {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextWindow int    `json:"context_window"`
			Meta          struct {
				NCtx int `json:"n_ctx"`
			} `json:"meta"`
		} `json:"data"`
	}
	if !c.getJSON(ctx, http.MethodGet, c.cfg.BaseURL+"/models", nil, &list) {
		return 0, ""
	}
	for _, m := range list.Data {
		if m.ID == model || len(list.Data) == 1 && m.Meta.NCtx > 0 {
			return max(m.ContextLength, m.MaxModelLen, m.ContextWindow, m.Meta.NCtx), "the server's model list"
		}
	}
	return 0, ""
}

func (c *Client) getJSON(ctx context.Context, method, url string, body []byte, v any) bool {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return err == nil && json.Unmarshal(b, v) == nil
}

// knownWindows are context sizes of well-known models, by name prefix
// (the longest matching prefix wins).
var knownWindows = map[string]int{
	"gpt-4o": 128000, "gpt-4o-mini": 128000, "gpt-4.1": 1047576, "gpt-4-turbo": 128000, "gpt-4": 8192,
	"gpt-5": 400000, "o1": 200000, "o3": 200000, "o4-mini": 200000, "gpt-3.5-turbo": 16385,
	"claude": 200000, "deepseek-chat": 128000, "deepseek-reasoner": 128000,
	"gemini-1.5-pro": 2097152, "gemini-1.5-flash": 1048576, "gemini-2": 1048576,
	"llama3.1": 131072, "llama3.2": 131072, "llama-3.1": 131072, "llama-3.3": 131072, "qwen2.5": 32768,
	"mistral-large": 131072, "mistral-small": 32768, "grok-4": 256000, "grok-3": 131072,
}

// KnownContextWindow looks a model up in the built-in table (a provider
// prefix like "openai/" is ignored); 0 when unknown.
func KnownContextWindow(model string) int {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	model = strings.ToLower(model)
	best, n := "", 0
	for prefix, size := range knownWindows {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, n = prefix, size
		}
	}
	return n
}
