package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/llm"
)

// bounded is a client whose bounds are short enough for a test.
// bounded is a client whose header and idle timeouts are wait: short only
// where the server never answers (so no load can make it pass), generous
// where silence would be the machine's slowness, not the server's.
func bounded(url string, wait time.Duration) *llm.Client {
	return llm.New(llm.Config{BaseURL: url + "/v1", Model: "m", MaxRetries: -1,
		HeaderTimeout: wait, IdleTimeout: wait, MaxAnswerBytes: 1 << 20})
}

// generous is a wait no loaded machine takes between two chunks.
const generous = 10 * time.Second

func stream(t *testing.T, h http.HandlerFunc) error { return streamWaiting(t, generous, h) }

func streamWaiting(t *testing.T, wait time.Duration, h http.HandlerFunc) error {
	t.Helper()
	// The body is read first: only then does the server notice the
	// client hanging up and end the request's context.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 3*generous)
	defer cancel()
	_, err := bounded(srv.URL, wait).Complete(ctx, ask("hi"), llm.Handler{})
	if ctx.Err() != nil {
		t.Fatal("the client hung")
	}
	return err
}

func sse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	w.(http.Flusher).Flush()
}

func frame(text string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
}

// TestServersThatHang: no headers, or headers and then silence, end with
// a message naming the setting, instead of hanging.
func TestServersThatHang(t *testing.T) {
	t.Parallel()
	// The server never answers: a short wait always runs out.
	err := streamWaiting(t, 300*time.Millisecond, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	if err == nil || !strings.Contains(err.Error(), "header_timeout") {
		t.Fatalf("no headers: %v", err)
	}
	err = streamWaiting(t, 300*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, frame("partial"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	if !errors.Is(err, llm.ErrIdle) || !strings.Contains(err.Error(), "idle_timeout") {
		t.Fatalf("silence: %v", err)
	}
	// Keep-alive comments are activity: a slow start (longer than the idle
	// timeout) is not silence.
	// Ten keep-alives 0.4 s apart outlast a 3 s idle timeout; only a stall
	// of 2.6 s between two of them could fail this.
	err = streamWaiting(t, 3*time.Second, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		for i := 0; i < 10; i++ {
			fmt.Fprint(w, ": PROCESSING\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(400 * time.Millisecond)
		}
		fmt.Fprint(w, frame("late but fine"))
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	if err != nil {
		t.Fatalf("keep-alives: %v", err)
	}
}

// TestAnswersAreBounded: an endless answer, or one endless line, ends
// with a clear error once past the bound.
func TestAnswersAreBounded(t *testing.T) {
	t.Parallel()
	err := stream(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		chunk := frame(strings.Repeat("x", 4096))
		for i := 0; i < 100000 && r.Context().Err() == nil; i++ {
			fmt.Fprint(w, chunk)
		}
	})
	if !errors.Is(err, llm.ErrAnswerTooLarge) {
		t.Fatalf("long answer: %v", err)
	}
	err = stream(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"`)
		block := strings.Repeat("y", 64<<10)
		for i := 0; i < 4000 && r.Context().Err() == nil; i++ {
			fmt.Fprint(w, block)
		}
	})
	if !errors.Is(err, llm.ErrAnswerTooLarge) {
		t.Fatalf("long line: %v", err)
	}
}

// TestNotAnEndpoint: a 200 with an HTML page says what it is.
func TestNotAnEndpoint(t *testing.T) {
	t.Parallel()
	err := stream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>Welcome to nginx</body></html>")
	})
	if !errors.Is(err, llm.ErrNotOpenAI) || !strings.Contains(err.Error(), "/v1") {
		t.Fatalf("html: %v", err)
	}
}

// TestErrorsHideURLSecrets: user info and the query of the base URL never
// appear in a connection error.
func TestErrorsHideURLSecrets(t *testing.T) {
	t.Parallel()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c := llm.New(llm.Config{BaseURL: "http://alice:hunter2@" + addr + "/v1?api-key=sk-secret", Model: "m", MaxRetries: -1})
	_, err := c.Complete(context.Background(), ask("hi"), llm.Handler{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "alice") || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("%v", err)
	}
	if got := llm.Redact("https://u:p@host/v1?key=k"); got != "https://host/v1?…" {
		t.Fatal(got)
	}
}
