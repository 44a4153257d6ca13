package llm

import (
	openai "github.com/sashabaranov/go-openai"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// ErrNotOpenAI is a server that answers, but not as an OpenAI-compatible
// endpoint does.
var ErrNotOpenAI = errors.New("not an OpenAI-compatible endpoint")

// idleBody closes a streamed body that sends nothing for too long, so a
// server that stops mid-answer cannot hang a turn.
type idleBody struct {
	body  io.ReadCloser
	timer *time.Timer
	d     time.Duration
}

func newIdleBody(body io.ReadCloser, d time.Duration, x *exchange) *idleBody {
	return &idleBody{body: body, d: d, timer: time.AfterFunc(d, func() {
		x.idleFired.Store(true)
		body.Close()
	})}
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}

// maxJSONBody bounds a whole (non-streamed) answer we keep a copy of.
const maxJSONBody = 32 << 20

// doer sits between go-openai and the HTTP client. It normalizes event
// streams before go-openai reads them, and records into the exchange the
// request's context carries what go-openai's types drop: the Retry-After
// of an error answer, and the raw body of an error or a whole JSON answer
// (so fields go-openai does not know, like `reasoning`, still arrive).
type doer struct {
	hc   *http.Client
	idle time.Duration
	url  string // the base URL, redacted, for messages
}

type exchangeKey struct{}

type exchange struct {
	idleFired  atomic.Bool // the stream went silent for longer than the idle timeout
	retryAfter time.Duration
	body       []byte // a JSON answer or an error body, as received
	sawDone    bool   // the stream ended with data: [DONE]
	// stream is the event stream's normalizer (nil for other answers).
	stream *sseNormalizer
}

// next is the stream's next event: read by chat from an event stream,
// by go-openai from anything else.
func (x *exchange) next(s *openai.ChatCompletionStream) ([]byte, error) {
	if x.stream != nil {
		return x.stream.next()
	}
	return s.RecvRaw()
}

// eventReady reports whether the stream's next event is already read.
func (x *exchange) eventReady() bool { return x.stream != nil && x.stream.eventReady() }

func withExchange(ctx context.Context) (context.Context, *exchange) {
	x := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.hc.Do(req)
	if err != nil {
		return resp, err
	}
	x, ok := req.Context().Value(exchangeKey{}).(*exchange)
	if !ok {
		x = &exchange{}
	}
	if resp.StatusCode < 300 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s answered with an HTML page; check the base URL (it usually ends in /v1)", ErrNotOpenAI, d.url)
	}
	if resp.StatusCode < 300 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The idle clock watches the bytes as they arrive: the normalizer
		// drops keep-alives, which are activity all the same.
		if d.idle > 0 {
			resp.Body = newIdleBody(resp.Body, d.idle, x)
		}
		resp.Body = newPacedBody(req.Context(), resp.Body)
	}
	x.stream = normalizeStream(resp, &x.sawDone)
	switch {
	case resp.StatusCode >= 400:
		x.retryAfter = parseRetryAfter(resp.Header, time.Now())
		fallthrough
	case strings.Contains(resp.Header.Get("Content-Type"), "json") || resp.Header.Get("Content-Type") == "":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxJSONBody))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		x.body = body
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}
