package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

var (
	// ErrStreamCut is a stream that ended before the model finished.
	ErrStreamCut = errors.New("the stream ended before the model finished its answer")
	// ErrMalformed is a stream frame that is not the JSON it should be.
	ErrMalformed = errors.New("the server sent a malformed stream frame")
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
	case e.Status == 401:
		return "the API key was rejected; set OPENAI_API_KEY or api_key_cmd in the config"
	case e.Status == 403:
		return "the API key may not use this model or endpoint"
	case e.Status == 404 && strings.Contains(msg, "model"):
		return "check the model name with --model or CHAT_MODEL"
	case e.Status == 404:
		return "check the base URL; it usually ends in /v1"
	case strings.Contains(msg, "context") && (strings.Contains(msg, "length") || strings.Contains(msg, "exceed") || strings.Contains(msg, "too long")):
		return "the conversation is longer than the model's context window; start a new session or use a model with a larger context"
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
	return e.Status == 429 || e.Status == 408 || e.Status >= 500
}

// ConnError is a failure to reach the server at all.
type ConnError struct {
	URL string
	Err error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("cannot reach %s: %v (is the server running? check --base-url or OPENAI_BASE_URL)", e.URL, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }

// classify turns what go-openai returned into our errors.
func classify(err error, url string, retryAfter time.Duration) error {
	var api *openai.APIError
	if errors.As(err, &api) {
		return &APIError{Status: api.HTTPStatusCode, URL: url, Message: api.Message, Type: api.Type, Code: fmt.Sprint(orEmpty(api.Code)), RetryAfter: retryAfter}
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		msg := strings.TrimSpace(string(req.Body))
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		if msg == "" && req.Err != nil {
			msg = req.Err.Error()
		}
		return &APIError{Status: req.HTTPStatusCode, URL: url, Message: msg, RetryAfter: retryAfter}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w (from %s: the connection closed mid-answer)", ErrStreamCut, url)
	}
	var nerr net.Error
	var oerr *net.OpError
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
