package oaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reply answers one chat completions request. serve reports whether the
// answer was delivered whole (false when the client hung up first).
type Reply interface {
	serve(w http.ResponseWriter, r *http.Request, req Request) bool
}

// Call is a tool call the scripted model makes.
type Call struct{ ID, Name, Args string }

// Usage is the token count an answer reports.
type Usage struct{ Prompt, Completion, Total int }

// Gate pauses an answer until released, so a test can act at an exact point.
type Gate struct {
	entered, release chan struct{}
	once             sync.Once
}

// NewGate returns a closed-for-business gate.
func NewGate() *Gate { return &Gate{entered: make(chan struct{}), release: make(chan struct{})} }

// Entered is closed when the handler reaches the gate.
func (g *Gate) Entered() <-chan struct{} { return g.entered }

// Release lets the handler go on.
func (g *Gate) Release() { close(g.release) }

// wait returns false when the client hung up instead.
func (g *Gate) wait(r *http.Request) bool {
	g.once.Do(func() { close(g.entered) })
	select {
	case <-g.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Answer is a scripted completion: reasoning, text, tool calls, streamed in
// pieces (or as one JSON body when the request did not ask to stream).
type Answer struct {
	Reasoning, Text string
	Calls           []Call
	// Piece is how many bytes of text or arguments go in one chunk
	// (default 4, about a token).
	Piece int
	// Interleave sends the argument fragments of several calls in turn
	// (call 0, call 1, call 0 …) instead of one call after the other.
	Interleave bool
	NoUsage    bool
	Usage      *Usage
	Finish     string // default "stop", or "tool_calls" with Calls
	// Gate, when set, holds the stream after GateAfter chunks.
	Gate      *Gate
	GateAfter int
	// CutAfter > 0 ends the body cleanly after that many chunks, with no
	// finish_reason and no [DONE]; Abort drops the connection there instead.
	CutAfter int
	Abort    bool
	Delay    time.Duration // between chunks
}

type delta struct {
	Role             string      `json:"role,omitempty"`
	Content          *string     `json:"content,omitempty"`
	ReasoningContent string      `json:"reasoning_content,omitempty"`
	ToolCalls        []toolDelta `json:"tool_calls,omitempty"`
}

type toolDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type chunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []choice       `json:"choices"`
	Usage   map[string]int `json:"usage,omitempty"`
}

func (a Answer) finish() string {
	switch {
	case a.Finish != "":
		return a.Finish
	case len(a.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (a Answer) usage(req Request, chunks int) map[string]int {
	u := Usage{Prompt: 10 * len(req.Messages), Completion: chunks}
	if req.Tokens > 0 {
		u.Prompt = req.Tokens
	}
	if a.Usage != nil {
		u = *a.Usage
	}
	if u.Total == 0 {
		u.Total = u.Prompt + u.Completion
	}
	return map[string]int{"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Total}
}

// deltas lays out the answer as the chunks a real server would send.
func (a Answer) deltas() []delta {
	piece := a.Piece
	if piece <= 0 {
		piece = 4
	}
	var out []delta
	for _, p := range split(a.Reasoning, piece) {
		out = append(out, delta{ReasoningContent: p})
	}
	for _, p := range split(a.Text, piece) {
		out = append(out, delta{Content: &p})
	}
	frags := make([][]string, len(a.Calls))
	for i, c := range a.Calls {
		frags[i] = split(c.Args, piece)
	}
	first := func(i int) delta {
		td := toolDelta{Index: i, ID: a.Calls[i].ID, Type: "function"}
		td.Function.Name = a.Calls[i].Name
		return delta{ToolCalls: []toolDelta{td}}
	}
	arg := func(i int, s string) delta {
		td := toolDelta{Index: i}
		td.Function.Arguments = s
		return delta{ToolCalls: []toolDelta{td}}
	}
	if a.Interleave {
		for i := range a.Calls {
			out = append(out, first(i))
		}
		for k := 0; ; k++ {
			any := false
			for i := range a.Calls {
				if k < len(frags[i]) {
					out = append(out, arg(i, frags[i][k]))
					any = true
				}
			}
			if !any {
				break
			}
		}
	} else {
		for i := range a.Calls {
			out = append(out, first(i))
			for _, f := range frags[i] {
				out = append(out, arg(i, f))
			}
		}
	}
	if len(out) > 0 {
		out[0].Role = "assistant"
	}
	return out
}

func (a Answer) serve(w http.ResponseWriter, r *http.Request, req Request) bool {
	if !req.Stream {
		return a.serveJSON(w, req)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher := w.(http.Flusher)
	model := req.Model
	send := func(c chunk) bool {
		c.ID, c.Object, c.Created, c.Model = "chatcmpl-oaitest", "chat.completion.chunk", 1700000000, model
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		flusher.Flush()
		return r.Context().Err() == nil
	}
	ds := a.deltas()
	for i, d := range ds {
		if a.Gate != nil && i == a.GateAfter && !a.Gate.wait(r) {
			return false
		}
		if a.CutAfter > 0 && i == a.CutAfter {
			return a.cut()
		}
		if a.Delay > 0 {
			select {
			case <-time.After(a.Delay):
			case <-r.Context().Done():
				return false
			}
		}
		if !send(chunk{Choices: []choice{{Delta: d}}}) {
			return false
		}
	}
	if a.Gate != nil && a.GateAfter >= len(ds) && !a.Gate.wait(r) {
		return false
	}
	if a.CutAfter > 0 {
		return a.cut()
	}
	fin := a.finish()
	if !send(chunk{Choices: []choice{{Delta: delta{}, FinishReason: &fin}}}) {
		return false
	}
	if !a.NoUsage && req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		if !send(chunk{Choices: []choice{}, Usage: a.usage(req, len(ds))}) {
			return false
		}
	}
	_, err := fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
	return err == nil
}

func (a Answer) cut() bool {
	if a.Abort {
		panic(http.ErrAbortHandler) // drops the connection mid-body
	}
	return true
}

func (a Answer) serveJSON(w http.ResponseWriter, req Request) bool {
	msg := map[string]any{"role": "assistant", "content": a.Text}
	if a.Reasoning != "" {
		msg["reasoning_content"] = a.Reasoning
	}
	if len(a.Calls) > 0 {
		var calls []map[string]any
		for _, c := range a.Calls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]string{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = calls
	}
	body := map[string]any{
		"id": "chatcmpl-oaitest", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": a.finish()}},
		"usage":   a.usage(req, len(a.deltas())),
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(body) == nil
}

// split cuts s into pieces of n bytes, never inside a UTF-8 sequence.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// Fail answers with an HTTP error in the OpenAI error shape, or Body as is.
type Fail struct {
	Status  int
	Message string
	Type    string
	Body    string // raw body; overrides Message
	Header  map[string]string
}

func (f Fail) serve(w http.ResponseWriter, _ *http.Request, _ Request) bool {
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return true
	}
	typ := f.Type
	if typ == "" {
		typ = "server_error"
	}
	writeError(w, f.Status, typ, "", f.Message)
	return true
}

// Raw answers 200 with a literal body (an SSE transcript, a malformed frame).
type Raw struct {
	Body        string
	ContentType string
}

func (x Raw) serve(w http.ResponseWriter, _ *http.Request, _ Request) bool {
	ct := x.ContentType
	if ct == "" {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	_, err := w.Write([]byte(x.Body))
	return err == nil
}

// Func answers with arbitrary code.
type Func func(w http.ResponseWriter, r *http.Request, req Request) bool

func (f Func) serve(w http.ResponseWriter, r *http.Request, req Request) bool { return f(w, r, req) }

// Flood is a server that answers every request with the same pre-rendered
// stream of n chunks (StreamBody), so a benchmark measures the client.
func Flood(t interface{ Cleanup(func()) }, n int, piece string) *Server {
	body := StreamBody(n, piece)
	srv := New(t)
	srv.SetFallback(func(Request) Reply { return Raw{Body: body} })
	return srv
}

// StreamBody renders a whole streamed answer of n text chunks (with the
// role chunk, the finish chunk, a usage chunk and [DONE]) as one body, for
// benchmarks that want the server's cost out of the measurement.
func StreamBody(n int, piece string) string {
	var b strings.Builder
	head := `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"scripted-model","choices":[{"index":0,"delta":{`
	tail := `},"finish_reason":null}]}` + "\n\n"
	b.WriteString(head + `"role":"assistant","content":""` + tail)
	content, _ := json.Marshal(piece)
	for range n {
		b.WriteString(head + `"content":` + string(content) + tail)
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"scripted-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	fmt.Fprintf(&b, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"scripted-model","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n, n+10)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}
