package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// maxJSONBody bounds a whole (non-streamed) answer we keep a copy of.
const maxJSONBody = 32 << 20

// doer sits between go-openai and the HTTP client. It normalizes event
// streams before go-openai reads them, and records into the exchange the
// request's context carries what go-openai's types drop: the Retry-After
// of an error answer, and the raw body of an error or a whole JSON answer
// (so fields go-openai does not know, like `reasoning`, still arrive).
type doer struct{ hc *http.Client }

type exchangeKey struct{}

type exchange struct {
	retryAfter time.Duration
	body       []byte // a JSON answer or an error body, as received
	sawDone    bool   // the stream ended with data: [DONE]
}

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
	normalizeStream(resp, &x.sawDone)
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
