package oaitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Message is a request message as the server received it.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
}

// Text is the message content as plain text (parts joined).
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Request is one chat completions request as received.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools,omitempty"`
	Stream         bool            `json:"stream"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	StreamOptions  *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options,omitempty"`
	Index int `json:"-"` // position among the requests this server received
	// Raw is the body as it came, byte for byte.
	Raw []byte `json:"-"`
	// Tokens is what the server counts the request as: a byte of JSON body
	// in four, a stand-in for a tokenizer that a client cannot predict
	// exactly. It is the prompt_tokens of the answer's usage.
	Tokens int `json:"-"`
	// Arrived is when the server began to serve the request (its headers
	// were read): benchmarks time a client's start-up up to it.
	Arrived time.Time `json:"-"`
}

// ToolNames lists the names of the offered tools.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// Shape renders the messages compactly (system user assistant(tool_calls)
// tool), for asserting the exact history a request carried.
func (r Request) Shape() string {
	var parts []string
	for _, m := range r.Messages {
		switch {
		case m.Role == "tool":
			parts = append(parts, "tool:"+m.ToolCallID)
		case len(m.ToolCalls) > 0:
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			parts = append(parts, "assistant("+strings.Join(ids, ",")+")")
		default:
			parts = append(parts, m.Role)
		}
	}
	return strings.Join(parts, " ")
}

// Server is the fake endpoint. The zero value is not usable; call New.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	apiKey    string
	fallback  func(Request) Reply
	models    []string
	script    []Reply
	requests  []Request
	rejected  []string
	forgotten int
	hangups   chan int
	window    int
	props     bool
	perToken  int // bytes of JSON body per counted token (0: 4)
	refused   int
	asides    []string
	titles    []Request // requests for a session's title, answered apart
	title     string    // what they are answered (default "A test title")
}

// New starts a server on 127.0.0.1 with the given script; it is closed
// when the test ends.
func New(t interface{ Cleanup(func()) }, script ...Reply) *Server {
	s := NewServer(script...)
	t.Cleanup(func() {
		// A failed test may leave a client blocked on a held stream:
		// close the connections first, so Close does not wait for it.
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

// NewServer starts a server the caller closes (for the demo program).
func NewServer(script ...Reply) *Server {
	s := &Server{script: script, hangups: make(chan int, 64), models: []string{"scripted-model"}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s
}

// SetWindow makes the server refuse, as llama.cpp does (a 400
// exceed_context_size_error naming n_ctx), every request that counts more
// than tokens (see Request.Tokens); 0 accepts any size.
func (s *Server) SetWindow(tokens int) {
	s.mu.Lock()
	s.window = tokens
	s.mu.Unlock()
}

// SetBytesPerToken makes the server count a token for every n bytes of
// the request's JSON (default 4): 2 is a tokenizer that counts far more
// than chat's estimate (numbers, code, other scripts).
func (s *Server) SetBytesPerToken(n int) {
	s.mu.Lock()
	s.perToken = n
	s.mu.Unlock()
}

// SayWindow makes the server answer GET /props with its window, as
// llama-server does (after SetWindow).
func (s *Server) SayWindow() {
	s.mu.Lock()
	s.props = true
	s.mu.Unlock()
}

// windowSaid is the window /props tells (0: it does not answer).
func (s *Server) windowSaid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.props {
		return 0
	}
	return s.window
}

// Overflows is how many requests were refused for their size.
func (s *Server) Overflows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// URL of the API root, to use as base URL (ends in /v1).
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// SetAPIKey makes the server require this Bearer token ("" for none).
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	s.apiKey = key
	s.mu.Unlock()
}

// SetFallback sets what answers when the script is empty (nil: a 500).
func (s *Server) SetFallback(f func(Request) Reply) {
	s.mu.Lock()
	s.fallback = f
	s.mu.Unlock()
}

// SetModels sets what GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	s.models = ids
	s.mu.Unlock()
}

// Push appends replies to the script.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	s.script = append(s.script, r...)
	s.mu.Unlock()
}

// Requests returns the accepted chat requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ForgetRequests drops the recorded requests (a long soak would keep every
// history it was sent); the count goes on.
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	s.forgotten += len(s.requests)
	s.requests = nil
	s.mu.Unlock()
}

// TitleMarker begins the system prompt of a request for a session's
// title (synthesizer.TitlePrompt): such requests are answered apart.
const TitleMarker = "You name conversations"

// TitleRequests are the requests for a session's title, in order.
func (s *Server) TitleRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.titles)
}

// SetTitle is what the server answers a request for a title.
func (s *Server) SetTitle(title string) {
	s.mu.Lock()
	s.title = title
	s.mu.Unlock()
}

// RequestCount is how many requests were accepted, forgotten ones too.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forgotten + len(s.requests)
}

// Asides are the requests other than chat completions ("GET /props",
// …: a client's probes), in the order they came.
func (s *Server) Asides() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asides)
}

// Rejected returns the 400 messages the server sent for invalid histories.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// Hangups delivers the index of each request whose client closed the
// connection before the answer was complete.
func (s *Server) Hangups() <-chan int { return s.hangups }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, 401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	completion := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
	if !completion {
		s.mu.Lock()
		s.asides = append(s.asides, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		s.serveModels(w)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/props" && s.windowSaid() > 0:
		// As llama-server says the window it runs.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":%d}}`, s.windowSaid())
		return
	case completion:
	default:
		writeError(w, 404, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, 400, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	req.Raw = body
	req.Arrived = arrived
	s.mu.Lock()
	req.Tokens = len(body) / cmp.Or(s.perToken, 4)
	window := s.window
	if window > 0 && req.Tokens > window {
		s.refused++
	}
	s.mu.Unlock()
	if window > 0 && req.Tokens > window {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"request (%d tokens) exceeds the available context size (%d tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`,
			req.Tokens, window, req.Tokens, window)
		return
	}
	if msg := validate(req); msg != "" {
		s.mu.Lock()
		s.rejected = append(s.rejected, msg)
		s.mu.Unlock()
		writeError(w, 400, "invalid_request_error", "", msg)
		return
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.HasPrefix(req.Messages[0].Text(), TitleMarker) {
		// A session's title, asked when a turn ends: answered apart, so
		// it never takes a scripted answer meant for the conversation.
		s.mu.Lock()
		s.titles = append(s.titles, req)
		title := cmp.Or(s.title, "A test title")
		s.mu.Unlock()
		Answer{Text: title}.serve(w, r, req)
		return
	}
	s.mu.Lock()
	req.Index = s.forgotten + len(s.requests)
	s.requests = append(s.requests, req)
	var reply Reply
	if len(s.script) > 0 {
		reply, s.script = s.script[0], s.script[1:]
	}
	fallback := s.fallback
	s.mu.Unlock()
	if reply == nil && fallback != nil {
		reply = fallback(req)
	}
	if reply == nil {
		writeError(w, 500, "server_error", "", "oaitest: the script is empty")
		return
	}
	if complete := reply.serve(w, r, req); !complete {
		select {
		case s.hangups <- req.Index:
		default:
		}
	}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	s.mu.Lock()
	ids := s.models
	s.mu.Unlock()
	for _, m := range ids {
		out.Data = append(out.Data, model{m, "model", "oaitest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate returns the real API's 400 message for what it would refuse.
func validate(req Request) string {
	if req.Model == "" {
		return "you must provide a model parameter"
	}
	if len(req.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	if req.StreamOptions != nil && !req.Stream {
		return "The 'stream_options' parameter is only allowed when 'stream' is enabled."
	}
	for i, t := range req.Tools {
		if t.Type != "function" || !toolName.MatchString(t.Function.Name) {
			return fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern.", i)
		}
		var schema map[string]any
		if len(t.Function.Parameters) > 0 && (json.Unmarshal(t.Function.Parameters, &schema) != nil || schema["type"] != "object") {
			return fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"'.", t.Function.Name)
		}
	}
	pending := map[string]bool{}
	var pendingOrder []string
	prev := ""
	for i, m := range req.Messages {
		if m.Role == "tool" {
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[%d], tool_call_id %q)", i, m.ToolCallID)
			}
			if len(m.Content) == 0 || string(m.Content) == "null" {
				return fmt.Sprintf("Invalid value for 'messages[%d].content': expected a string, got null.", i)
			}
			delete(pending, m.ToolCallID)
			prev = "tool"
			continue
		}
		if len(pending) > 0 {
			var missing []string
			for _, id := range pendingOrder {
				if pending[id] {
					missing = append(missing, id)
				}
			}
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(missing, ", ")
		}
		switch m.Role {
		case "system", "developer", "user", "assistant":
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'. (messages[%d].role)", m.Role, i)
		}
		if m.Role == prev && m.Role != "system" {
			return fmt.Sprintf("messages[%d]: two consecutive messages with role '%s'; roles must alternate", i, m.Role)
		}
		if m.Role != "assistant" && (len(m.Content) == 0 || string(m.Content) == "null" || string(m.Content) == `""`) {
			return fmt.Sprintf("Invalid value for 'messages[%d].content': expected a non-empty string.", i)
		}
		if m.Role == "assistant" && len(m.ToolCalls) == 0 && (len(m.Content) == 0 || string(m.Content) == "null") {
			return fmt.Sprintf("Invalid value for 'messages[%d].content': an assistant message needs content or tool_calls.", i)
		}
		pendingOrder = pendingOrder[:0]
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
				return fmt.Sprintf("Invalid 'messages[%d].tool_calls': each call needs an id, type 'function' and a name.", i)
			}
			pending[c.ID] = true
			pendingOrder = append(pendingOrder, c.ID)
		}
		prev = m.Role
	}
	if len(pending) > 0 {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(pendingOrder, ", ")
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nilIfEmpty(code)}}
	_ = json.NewEncoder(w).Encode(body)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
