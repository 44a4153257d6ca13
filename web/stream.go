package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/chatrepl/chat/listener"
)

// frame is one event as the page receives it: numbered, encoded once.
type frame struct {
	seq  uint64
	data []byte
}

// mark is where the page's snapshot of the history ends: the first n
// messages, and every event from seq on tells what came after them.
type mark struct {
	seq uint64
	n   int
}

// keepBefore is how many frames before the mark stay for a page that
// reconnects having missed a turn's end (older ones reload the state).
const keepBefore = 4096

// Stream is the run's listener for the pages: every event numbered and
// kept from the last point the history was complete, so a page that
// loads or reconnects gets each event once (SSE ids, Last-Event-ID).
type Stream struct {
	mu      sync.Mutex
	frames  []frame
	next    uint64 // seq of the next frame (frames start at 1)
	at      mark
	wake    chan struct{} // closed at each new frame
	length  func() int    // the session's length now
	deltas  map[string]*listener.Sanitizer
	running bool
	closed  bool
}

// NewStream numbers events from 1. It is made before the run (the run's
// approver asks through it); Follow ties it to the run's session.
func NewStream() *Stream {
	return &Stream{next: 1, wake: make(chan struct{}), length: func() int { return 0 },
		at: mark{seq: 1}, deltas: map[string]*listener.Sanitizer{}}
}

// Follow says how long the session is: what a page's snapshot holds from
// now, and at the end of each main-agent turn.
func (s *Stream) Follow(length func() int) {
	s.mu.Lock()
	s.length = length
	s.at = mark{seq: s.next, n: length()}
	s.mu.Unlock()
}

// event is an event as the page reads it: the normalized form, with the
// Markdown of a complete answer rendered.
type event struct {
	listener.Wire
	HTML string `json:"html,omitempty"`
}

// OnEvent implements listener.Listener.
func (s *Stream) OnEvent(e listener.Event) {
	w := listener.WireOf(e)
	v := event{Wire: w}
	switch e := e.(type) {
	case listener.AssistantDelta, listener.ThinkingDelta:
		s.mu.Lock()
		z := s.deltas[w.Agent+w.Type]
		if z == nil {
			z = &listener.Sanitizer{}
			s.deltas[w.Agent+w.Type] = z
		}
		v.Text = z.Clean(w.Text)
		s.mu.Unlock()
	case listener.Assistant:
		v.Text = listener.String(e.Text)
		v.HTML = Markdown(e.Text)
		s.resetDeltas(w.Agent)
	default:
		v.Text = listener.String(v.Text)
		if v.Content != nil {
			c := listener.String(*v.Content)
			v.Content = &c
		}
		v.Arguments = listener.String(v.Arguments)
		v.ForModel = listener.String(v.ForModel)
		if len(v.Diagnostics) > 0 {
			files := make([]listener.DiagnosticFile, len(v.Diagnostics))
			for i, f := range v.Diagnostics {
				f.Path, f.Server = listener.String(f.Path), listener.String(f.Server)
				f.Lines = append([]string(nil), f.Lines...)
				for j := range f.Lines {
					f.Lines[j] = listener.String(f.Lines[j])
				}
				files[i] = f
			}
			v.Diagnostics = files
		}
	}
	done, isDone := e.(listener.TurnDone)
	user, isUser := e.(listener.UserTurn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if isUser && user.Agent == "" && !user.MidLoop {
		s.running = true
	}
	s.appendLocked(v)
	if isDone && done.Agent == "" {
		s.running = false
		s.markLocked()
	}
}

func (s *Stream) resetDeltas(agent string) {
	s.mu.Lock()
	delete(s.deltas, agent+"assistant_delta")
	delete(s.deltas, agent+"thinking_delta")
	s.mu.Unlock()
}

// Publish sends the page something that is not an agent's event (an
// approval, the pending list, a reset).
func (s *Stream) Publish(kind string, v any) {
	data, err := json.Marshal(struct {
		Type string `json:"type"`
		Data any    `json:"data"`
	}{kind, v})
	if err != nil {
		return
	}
	s.mu.Lock()
	s.appendRawLocked(data)
	s.mu.Unlock()
}

// Reset says the history changed other than by events (a session was
// opened, an edit): the page reloads it.
func (s *Stream) Reset() {
	s.mu.Lock()
	s.appendRawLocked([]byte(`{"type":"reset"}`))
	s.markLocked()
	s.mu.Unlock()
}

func (s *Stream) markLocked() {
	s.at = mark{seq: s.next, n: s.length()}
	if cut := s.cutLocked(); cut > 0 {
		s.frames = append(s.frames[:0:0], s.frames[cut:]...)
	}
}

// cutLocked is how many frames are too old to keep.
func (s *Stream) cutLocked() int {
	if s.at.seq <= keepBefore || len(s.frames) == 0 {
		return 0
	}
	oldest := s.at.seq - keepBefore
	i := 0
	for i < len(s.frames) && s.frames[i].seq < oldest {
		i++
	}
	return i
}

func (s *Stream) appendLocked(v event) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.appendRawLocked(data)
}

func (s *Stream) appendRawLocked(data []byte) {
	s.frames = append(s.frames, frame{seq: s.next, data: data})
	s.next++
	close(s.wake)
	s.wake = make(chan struct{})
}

// Snapshot is where a page starts: the first n messages of the history,
// then the events from seq on; running says a turn is under way.
func (s *Stream) Snapshot() (seq uint64, n int, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at.seq, s.at.n, s.running
}

// since returns the frames after seq, the channel closed at the next one,
// and whether the page fell behind what is kept (it must reload).
func (s *Stream) since(after uint64) ([]frame, <-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, true
	}
	if len(s.frames) > 0 && after+1 < s.frames[0].seq {
		return nil, s.wake, true
	}
	i := len(s.frames)
	for i > 0 && s.frames[i-1].seq > after {
		i--
	}
	return s.frames[i:], s.wake, false
}

// Close ends every page's stream.
func (s *Stream) Close() {
	s.mu.Lock()
	s.closed = true
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// keepAlive is how often an idle stream says it is there (proxies and
// browsers drop a silent connection).
const keepAlive = 15 * time.Second

// ServeHTTP streams the frames after the Last-Event-ID header (or the
// "after" query of the first connection) as Server-Sent Events.
func (s *Stream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("after")
	}
	after, err := strconv.ParseUint(last, 10, 64)
	if last != "" && err != nil {
		http.Error(w, "Last-Event-ID is not a number", http.StatusBadRequest)
		return
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		frames, wake, behind := s.since(after)
		if behind {
			fmt.Fprint(w, "data: {\"type\":\"reset\"}\n\n")
			_ = rc.Flush()
			return
		}
		for _, f := range frames {
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", f.seq, f.data); err != nil {
				return
			}
			after = f.seq
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-wake:
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
