package llm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/chatrepl/chat/internal/lazyre"
)

var (
	// ErrStreamCut is a stream that ended before the model finished.
	ErrStreamCut = errors.New("the stream ended before the model finished its answer")
	// ErrMalformed is a stream frame that is not the JSON it should be.
	ErrMalformed = errors.New("the server sent a malformed stream frame")
	// ErrIdle is a stream that went silent for longer than the idle timeout.
	ErrIdle = errors.New("the server stopped sending in the middle of an answer")
	// ErrAnswerTooLarge is an answer past the size one answer may have.
	ErrAnswerTooLarge = errors.New("the answer is larger than chat accepts")
)

// APIError is an HTTP error answer from the server, or an error the server
// reported inside a 200 stream (Status 0).
type APIError struct {
	Status     int
	URL        string
	Message    string // the server's own words
	Type       string
	Code       string
	RetryAfter time.Duration
	// Window is the context size the server named in a context-overflow
	// error (llama.cpp's n_ctx, "maximum context length is N"); 0 if none.
	Window int
	// Counted is the request's size the server counted, named in a
	// context-overflow error (llama.cpp's n_prompt_tokens); 0 if none.
	Counted int
	// NoKey: the request carried no API key (a 401 then wants one, where
	// with a key it refused that key).
	NoKey bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d from %s", e.Status, e.URL)
	} else {
		fmt.Fprintf(&b, "error in the stream from %s", e.URL)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if h := e.hint(); h != "" {
		b.WriteString(" (" + h + ")")
	}
	return b.String()
}

func (e *APIError) hint() string {
	msg := strings.ToLower(e.Message + " " + e.Code + " " + e.Type)
	switch {
	case strings.Contains(msg, "insufficient_quota"):
		return "the account is out of credit; check its billing"
	case e.Status == 401 && e.NoKey:
		return "the server wants an API key and none is set; set OPENAI_API_KEY, or api_key or api_key_cmd in the config"
	case e.Status == 401:
		return "the server refused the API key that was sent; check OPENAI_API_KEY, or api_key or api_key_cmd in the config"
	case e.Status == 403:
		return "the API key may not use this model or endpoint"
	case e.Status == 404 && strings.Contains(msg, "model"):
		return "check the model name with --model or CHAT_MODEL"
	case e.Status == 404:
		return "check the base URL; it usually ends in /v1"
	case isContextOverflow(msg):
		return "the request is larger than the model's context window"
	case strings.Contains(msg, "--jinja"):
		return "llama-server takes tools only when started with --jinja; restart it so"
	case e.Status >= 500 && e.permanent():
		return "the server refuses this request as it is; trying again would not help"
	case e.Status == 429 && e.RetryAfter > 0:
		return fmt.Sprintf("rate limited; try again in %s", e.RetryAfter.Round(time.Second))
	case e.Status == 429:
		return "rate limited; wait a little and try again"
	case e.Status >= 500:
		return "the server failed; try again later"
	}
	return ""
}

// Retryable reports whether a fresh attempt may succeed.
func (e *APIError) Retryable() bool {
	if strings.Contains(e.Code+e.Type, "insufficient_quota") {
		return false // waiting does not add credit
	}
	if e.overflow() {
		return false // llama.cpp says so with a 500 on some paths: the same request fails the same way
	}
	if e.permanent() {
		return false
	}
	return e.Status == 429 || e.Status == 408 || e.Status >= 500
}

// permanent reports a server error that names what the server cannot do
// with this request (llama.cpp's 500 "tools param requires --jinja flag"):
// the same request fails the same way, so it is said at once, not retried.
func (e *APIError) permanent() bool {
	msg := strings.ToLower(e.Message)
	for _, s := range []string{"--jinja", "not supported", "unsupported", "does not support", "not implemented"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// ConnError is a failure to reach the server at all.
type ConnError struct {
	URL string
	Err error
}

func (e *ConnError) Error() string {
	reason := e.Err
	// url.Error repeats the request's URL, user info and query included.
	var ue *url.Error
	if errors.As(reason, &ue) {
		reason = ue.Err
	}
	return fmt.Sprintf("cannot reach %s: %v (is the server running? check --base-url or OPENAI_BASE_URL)", e.URL, reason)
}

func (e *ConnError) Unwrap() error { return e.Err }

// classify turns what go-openai returned into our errors. For an HTTP
// error the body the doer kept is read by bodyError, which knows more
// shapes than go-openai (and keeps OpenRouter's upstream message).
func classify(err error, url string, x *exchange) error {
	if x.idleFired.Load() {
		return fmt.Errorf("%w (from %s); chat closed the stream (idle_timeout in the config sets how long)", ErrIdle, url)
	}
	if errors.Is(err, ErrNotOpenAI) || errors.Is(err, ErrAnswerTooLarge) {
		return err
	}
	var api *openai.APIError
	var req *openai.RequestError
	status := 0
	switch {
	case errors.As(err, &api):
		status = api.HTTPStatusCode
	case errors.As(err, &req):
		status = req.HTTPStatusCode
	}
	if status != 0 {
		e := bodyError(x.body)
		if e.Message == "" && api != nil {
			e.Message, e.Type, e.Code = api.Message, api.Type, fmt.Sprint(orEmpty(api.Code))
		}
		if e.Message == "" && req != nil && req.Err != nil {
			e.Message = req.Err.Error()
		}
		e.Status, e.URL, e.RetryAfter = status, url, x.retryAfter
		return e.withRetryHint()
	}
	if api != nil { // an error frame inside a 200 stream
		return &APIError{URL: url, Message: api.Message, Type: api.Type, Code: fmt.Sprint(orEmpty(api.Code))}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (from %s: the connection closed mid-answer)", ErrStreamCut, url)
	}
	var nerr net.Error
	var oerr *net.OpError
	if errors.As(err, &nerr) && nerr.Timeout() && strings.Contains(err.Error(), "awaiting response headers") {
		return fmt.Errorf("%s accepted the request but did not begin an answer in time (header_timeout in the config sets how long); is the server overloaded?", url)
	}
	if errors.As(err, &oerr) || errors.As(err, &nerr) {
		return &ConnError{URL: url, Err: err}
	}
	return err
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// bodyError reads an error body that go-openai could not: a top-level
// error object (older vLLM), a string "error" (Ollama), or plain text.
func bodyError(body []byte) *APIError {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    any             `json:"code"`
		Detail  any             `json:"detail"`
	}
	e := &APIError{}
	if json.Unmarshal(body, &v) != nil {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		e.Message = msg
		return e
	}
	var s string
	var inner wireError
	switch {
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		e.Message = s
	case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
		e.Message, e.Type, e.Code, e.Window, e.Counted = inner.Message, inner.Type, fmt.Sprint(orEmpty(inner.Code)), inner.NCtx, inner.NPrompt
		if raw := inner.Metadata.Raw; raw != "" && !strings.Contains(e.Message, raw) {
			e.Message += ": " + raw // OpenRouter: what the upstream provider said
		}
	case v.Message != "":
		e.Message, e.Type, e.Code = v.Message, v.Type, fmt.Sprint(orEmpty(v.Code))
	case v.Detail != nil:
		e.Message = fmt.Sprint(v.Detail)
	}
	// Ollama passes llama-server's whole error body on as its message.
	if msg := strings.TrimSpace(e.Message); strings.HasPrefix(msg, "{") && json.Valid([]byte(msg)) {
		if in := bodyError([]byte(msg)); in.Message != "" && in.Message != msg {
			e.Message, e.Window, e.Counted = in.Message, in.Window, in.Counted
			e.Type, e.Code = cmp.Or(in.Type, e.Type), cmp.Or(in.Code, e.Code)
		}
	}
	return e
}

// tryAgainIn finds "try again in 5.289s" (Groq) or "114h18m0s" (OpenAI).
var tryAgainIn = lazyre.New(`(?i)try again in ([0-9][0-9hms.]*s)`)

// withRetryHint fills RetryAfter from the message of a 429 that came
// without a Retry-After header.
func (e *APIError) withRetryHint() *APIError {
	if e.Status == 429 && e.RetryAfter == 0 {
		if m := tryAgainIn().FindStringSubmatch(e.Message); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil {
				e.RetryAfter = d
			}
		}
	}
	return e
}
