package web

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/listener"
)

// frames reads the ids and data of the SSE frames a request gets within
// a moment.
func frames(t *testing.T, url string, lastID string) (ids, data []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			ids = append(ids, v)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, v)
		}
	}
	return ids, data
}

func TestStreamResumesFromLastEventID(t *testing.T) {
	length := 0
	s := NewStream()
	s.Follow(func() int { return length })
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.OnEvent(listener.UserTurn{Content: "hi"})
	s.OnEvent(listener.AssistantDelta{Text: "hel"})
	s.OnEvent(listener.AssistantDelta{Text: "lo"})
	ids, _ := frames(t, srv.URL, "")
	if strings.Join(ids, ",") != "1,2,3" {
		t.Fatalf("a new page got ids %v", ids)
	}
	ids, data := frames(t, srv.URL, "2")
	if strings.Join(ids, ",") != "3" || !strings.Contains(data[0], `"text":"lo"`) {
		t.Fatalf("Last-Event-ID 2 got %v %v, want only frame 3", ids, data)
	}
	// The turn ends: the snapshot now holds its messages, and a page
	// that starts there gets nothing twice.
	length = 2
	s.OnEvent(listener.TurnDone{})
	seq, n, running := s.Snapshot()
	if seq != 5 || n != 2 || running {
		t.Fatalf("snapshot after the turn: seq %d, %d messages, running %v", seq, n, running)
	}
	// Escape sequences split across deltas never reach the page.
	s.OnEvent(listener.AssistantDelta{Text: "a\x1b[3"})
	s.OnEvent(listener.AssistantDelta{Text: "1mb"})
	_, data = frames(t, srv.URL, "4")
	if got := strings.Join(data, ""); strings.Contains(got, "\x1b") || strings.Contains(got, "[31m") || strings.Contains(got, `\u001b`) {
		t.Fatalf("an escape sequence reached the page: %s", got)
	}
}

func TestStreamSendsResetToAPageTooFarBehind(t *testing.T) {
	s := NewStream()
	s.Follow(func() int { return 0 })
	srv := httptest.NewServer(s)
	defer srv.Close()
	for range keepBefore + 10 {
		s.OnEvent(listener.AssistantDelta{Text: "x"})
	}
	s.OnEvent(listener.TurnDone{})
	_, data := frames(t, srv.URL, "1")
	if len(data) != 1 || data[0] != `{"type":"reset"}` {
		t.Fatalf("a page behind what is kept got %d frames, the first %q; want one reset", len(data), data[0])
	}
}
