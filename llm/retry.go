package llm

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Complete sends r and streams the answer to h. A failure before the first
// chunk reached h is retried (429, 408, 5xx, connection errors), at most
// MaxRetries times, each announced through h.Retry. After the first chunk a
// failure ends the call: the partial Response is returned with the error.
func (c *Client) Complete(ctx context.Context, r Request, h Handler) (Response, error) {
	wire := c.wireRequest(r)
	for attempt := 0; ; attempt++ {
		resp, started, err := c.once(ctx, wire, r.NoStream, h)
		if err == nil || started || ctx.Err() != nil {
			return resp, err
		}
		wait, ok := c.retryWait(attempt, err)
		if !ok {
			return resp, err
		}
		if h.Retry != nil {
			h.Retry(attempt+1, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return resp, ctx.Err()
		case <-t.C:
		}
	}
}

// retryWait decides whether err deserves another attempt and how long to
// wait first: exponential back-off with jitter, or what the server asked.
func (c *Client) retryWait(attempt int, err error) (time.Duration, bool) {
	if c.cfg.MaxRetries < 0 || attempt >= c.cfg.MaxRetries {
		return 0, false
	}
	var api *APIError
	var conn *ConnError
	switch {
	case errors.As(err, &api) && api.Status != 0 && api.Retryable():
	case errors.As(err, &conn):
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrStreamCut):
	default:
		return 0, false
	}
	d := c.cfg.BaseBackoff << attempt
	wait := d/2 + rand.N(d/2+1)
	if api != nil && api.RetryAfter > 0 {
		if api.RetryAfter > c.cfg.MaxRetryAfter {
			return 0, false
		}
		wait = api.RetryAfter
	}
	return wait, true
}

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or
// an HTTP date).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
