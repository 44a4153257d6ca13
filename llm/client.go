package llm

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/chatrepl/chat/session"
)

// Config says where the model is and how hard to try.
type Config struct {
	BaseURL string // e.g. https://api.openai.com/v1
	APIKey  string // may be empty for local servers
	Model   string

	HTTPClient *http.Client // nil: a client without a global timeout (streams are long)
	// MaxRetries is how many times a failed request is tried again; 0 means
	// the default of 3, a negative value none.
	MaxRetries int
	// BaseBackoff is the first wait of the exponential back-off (default 500ms).
	BaseBackoff time.Duration
	// MaxRetryAfter caps how long a server may ask us to wait (default 60s);
	// a longer Retry-After ends the turn with the wait in the message.
	MaxRetryAfter time.Duration
	// HeaderTimeout bounds the wait for an answer to begin (default 5m;
	// only for the client New makes). IdleTimeout bounds the silence in a
	// streamed answer (default 5m; keep-alive comments count as data).
	HeaderTimeout, IdleTimeout time.Duration
	// MaxAnswerBytes bounds what one answer may hold: text, reasoning and
	// tool-call arguments together (default 16 MiB).
	MaxAnswerBytes int
}

// Defaults of the bounds above.
const (
	DefaultHeaderTimeout  = 5 * time.Minute
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultMaxAnswerBytes = 16 << 20
)

// Client sends requests to one OpenAI-compatible endpoint.
type Client struct {
	oa  *openai.Client
	cfg Config
	url string // chat completions URL, for messages
	// completionTokens: the server takes max_completion_tokens (OpenAI's
	// own API, whose reasoning models refuse max_tokens); others get
	// max_tokens, which every OpenAI-compatible server reads.
	completionTokens bool
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.BaseBackoff == 0 {
		cfg.BaseBackoff = 500 * time.Millisecond
	}
	if cfg.MaxRetryAfter == 0 {
		cfg.MaxRetryAfter = time.Minute
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: transportFor(cfg.HeaderTimeout)}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &doer{hc: hc, idle: cfg.IdleTimeout, url: Redact(cfg.BaseURL)}
	// Keep-alive comments (": PROCESSING") count as empty messages in
	// go-openai; some servers send hundreds before the first token.
	oc.EmptyMessagesLimit = 100000
	host := ""
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	return &Client{oa: openai.NewClientWithConfig(oc), cfg: cfg, url: Redact(cfg.BaseURL) + "/chat/completions",
		completionTokens: host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com")}
}

// transports holds one transport per header timeout, shared by every
// client as http.DefaultTransport was: the model listing, the context
// probe and the chat reuse one another's connections.
var transports sync.Map // time.Duration -> *http.Transport

func transportFor(headerTimeout time.Duration) *http.Transport {
	if t, ok := transports.Load(headerTimeout); ok {
		return t.(*http.Transport)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	actual, _ := transports.LoadOrStore(headerTimeout, t)
	return actual.(*http.Transport)
}

// Redact drops user:password@ and the query from a URL shown to a person:
// some gateways carry a key there.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the configured base URL"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}

// Model is the default model of this client.
func (c *Client) Model() string { return c.cfg.Model }

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// Request is one completion to ask for.
type Request struct {
	Messages    []session.Message // the history; merged before sending
	Tools       []ToolSpec
	Model       string // empty: the client's model
	Temperature *float32
	TopP        *float32
	MaxTokens   int
	NoStream    bool
	// Schema, when set, asks for a JSON answer matching this JSON Schema.
	Schema json.RawMessage
}

// ChunkKind says what a Chunk carries.
type ChunkKind uint8

const (
	ChunkText ChunkKind = iota
	ChunkReasoning
	ChunkToolCall
)

// Chunk is one normalized piece of a streamed answer.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall ToolCallDelta
}

// Handler receives a completion as it happens. Chunk may return an error
// to abort the stream (the agent does so when the turn is cancelled).
type Handler struct {
	Chunk func(Chunk) error
	Retry func(attempt int, wait time.Duration, err error)
}

// Response is a finished completion.
type Response struct {
	Content      string
	Reasoning    string
	ToolCalls    []session.ToolCall
	Usage        *session.Usage
	FinishReason string
}

func (c *Client) wireRequest(r Request) openai.ChatCompletionRequest {
	model := r.Model
	if model == "" {
		model = c.cfg.Model
	}
	out := openai.ChatCompletionRequest{Model: model}
	switch {
	case r.MaxTokens == 0:
	case c.completionTokens:
		out.MaxCompletionTokens = r.MaxTokens
	default:
		//lint:ignore SA1019 local and most hosted servers read max_tokens; OpenAI's reasoning models want max_completion_tokens
		out.MaxTokens = r.MaxTokens
	}
	if r.Temperature != nil {
		out.Temperature = *r.Temperature
	}
	if r.TopP != nil {
		out.TopP = *r.TopP
	}
	if len(r.Schema) > 0 {
		out.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "answer", Schema: r.Schema},
		}
	}
	for _, m := range session.Merge(session.Sent(r.Messages)) {
		out.Messages = append(out.Messages, toWire(m))
	}
	for _, t := range r.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	if !r.NoStream {
		out.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return out
}

func toWire(m session.Message) openai.ChatCompletionMessage {
	w := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case session.RoleUser:
		if m.Context != "" {
			w.Content = strings.TrimSpace(m.Context + "\n\n" + m.Content)
		}
		if len(m.Files) > 0 {
			w.Content = ""
			w.MultiContent = fileParts(m)
		} else if w.Content == "" {
			w.Content = " " // servers refuse an empty user message
		}
	case session.RoleAssistant:
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
	case session.RoleTool:
		w.ToolCallID = m.ToolCallID
		w.Name = m.Name
		if w.Content == "" {
			w.Content = "(no output)" // a tool message must have content
		}
	}
	return w
}

func fileParts(m session.Message) []openai.ChatMessagePart {
	var parts []openai.ChatMessagePart
	if text := strings.TrimSpace(m.Context + "\n\n" + m.Content); text != "" {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: text})
	}
	for _, f := range m.Files {
		switch {
		case strings.HasPrefix(f.MediaType, "image/"):
			url := f.URL
			if url == "" {
				url = "data:" + f.MediaType + ";base64," + base64.StdEncoding.EncodeToString(f.Data)
			}
			parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: url}})
		default:
			parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText,
				Text: "<file name=\"" + f.Filename + "\">\n" + string(f.Data) + "\n</file>"})
		}
	}
	return parts
}
