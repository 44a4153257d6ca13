package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/llm"
	"github.com/chatrepl/chat/session"
)

var update = flag.Bool("update", false, "rewrite the golden outcomes of TestRecordedFixtures")

const fixtureDir = "../testdata/real-streams"

// fixtureOutcome is what a person would see of one recorded answer.
type fixtureOutcome struct {
	Text      string                  `json:"text,omitempty"`
	Reasoning string                  `json:"reasoning,omitempty"`
	ToolCalls []listener.ToolCallInfo `json:"tool_calls,omitempty"`
	Finish    string                  `json:"finish,omitempty"`
	Usage     *[3]int                 `json:"usage,omitempty"` // prompt, completion, total
	Retries   int                     `json:"retries,omitempty"`
	Error     string                  `json:"error,omitempty"`
	// FollowUp is the shape of the request sent after the tool results.
	FollowUp string `json:"follow_up,omitempty"`
}

type fixtureMeta struct {
	Status  int                        `json:"status"`
	Headers map[string]json.RawMessage `json:"response_headers"`
}

// TestRecordedFixtures replays every recorded response in
// testdata/real-streams (status, headers and body as recorded; SSE bodies in
// frame-sized writes) through the whole agent, and compares what comes out
// with testdata/fixtures/<name>.golden.json. A new fixture is picked up by
// itself: run `go test ./agent -run RecordedFixtures -update`, read the new
// golden file, and commit both.
func TestRecordedFixtures(t *testing.T) {
	t.Parallel()
	var bodies []string
	for _, pattern := range []string{"*.sse", "*.json"} {
		found, _ := filepath.Glob(filepath.Join(fixtureDir, pattern))
		for _, f := range found {
			if !strings.HasSuffix(f, ".meta.json") && !strings.HasSuffix(f, ".request.json") {
				bodies = append(bodies, filepath.Base(f))
			}
		}
	}
	if len(bodies) < 38 {
		t.Fatalf("only %d recorded responses found", len(bodies))
	}
	for _, file := range bodies {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			got := replayFixture(t, file)
			golden := filepath.Join("testdata", "fixtures", file+".golden.json")
			b, _ := json.MarshalIndent(got, "", "  ")
			b = append(b, '\n')
			if *update {
				_ = os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden outcome for %s: run go test ./agent -run RecordedFixtures -update and review it", file)
			}
			if !bytes.Equal(want, b) {
				t.Fatalf("outcome changed:\n%s\nwant:\n%s", b, want)
			}
		})
	}
}

// replayFixture runs one recorded body (file.sse or file.json, with the
// status and headers of its .meta.json; a stream and a whole answer of the
// same case share one meta file).
func replayFixture(t *testing.T, file string) fixtureOutcome {
	name, ext := strings.TrimSuffix(file, filepath.Ext(file)), filepath.Ext(file)
	var meta fixtureMeta
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name+".meta.json"))
	if err != nil || json.Unmarshal(raw, &meta) != nil {
		t.Fatalf("meta: %v", err)
	}
	body, err := os.ReadFile(filepath.Join(fixtureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	// A recorded error answers whichever way we asked; a whole answer
	// needs a request that did not ask to stream.
	stream := ext == ".sse" || meta.Status >= 400
	if ext == ".json" && meta.Status < 400 {
		meta.Headers = map[string]json.RawMessage{"Content-Type": json.RawMessage(`"application/json"`)}
	}
	reply := recordedReply(meta, body)
	srv := oaitest.New(t)
	// The first request and any retry get the recording; the request after
	// the tool results gets a plain answer.
	srv.SetFallback(func(r oaitest.Request) oaitest.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return oaitest.Answer{Text: "done"}
		}
		return reply
	})
	rec := &listener.Recorder{}
	client := llm.New(llm.Config{BaseURL: srv.BaseURL(), APIKey: "sk-recorded", Model: "m", BaseBackoff: time.Millisecond, MaxRetryAfter: 10 * time.Millisecond})
	a := agent.New(agent.Options{Client: client, Session: session.New(), Listeners: listener.NewList(rec), NoStream: !stream})
	_, runErr := a.Run(context.Background(), "x")

	var out fixtureOutcome
	var deltaText, deltaReasoning strings.Builder
	first := true
	for _, e := range rec.Events() {
		if !first {
			break
		}
		switch e := e.(type) {
		case listener.AssistantDelta:
			deltaText.WriteString(e.Text)
		case listener.ThinkingDelta:
			deltaReasoning.WriteString(e.Text)
		case listener.Thinking:
			out.Reasoning = e.Text
		case listener.Assistant:
			out.Text, out.ToolCalls, out.Finish = e.Text, e.ToolCalls, e.Finish
		case listener.Usage:
			out.Usage = &[3]int{e.Prompt, e.Completion, e.Total}
		case listener.Retry:
			out.Retries++
		case listener.Error:
			out.Error = strings.ReplaceAll(e.Err.Error(), srv.URL, "<server>")
		case listener.ToolCall:
			first = false
		}
	}
	if out.Error != "" {
		// What streamed before the error is what the person saw.
		out.Text, out.Reasoning = deltaText.String(), deltaReasoning.String()
	}
	if deltaText.String() != out.Text {
		t.Fatalf("deltas %q but message %q", deltaText.String(), out.Text)
	}
	if deltaReasoning.String() != out.Reasoning {
		t.Fatalf("reasoning deltas %q but message %q", deltaReasoning.String(), out.Reasoning)
	}
	if (runErr != nil) != (out.Error != "") {
		t.Fatalf("Run returned %v but the events say %q", runErr, out.Error)
	}
	if len(out.ToolCalls) > 0 {
		out.FollowUp = checkFollowUp(t, srv, out.ToolCalls)
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Fatalf("the strict server refused: %v", rej)
	}
	return out
}

// checkFollowUp verifies the request after the tool results echoes every
// call exactly and answers each once, and returns its shape.
func checkFollowUp(t *testing.T, srv *oaitest.Server, calls []listener.ToolCallInfo) string {
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var echoed *oaitest.Message
	results := map[string]int{}
	for i, m := range last.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			echoed = &last.Messages[i]
		}
		if m.Role == "tool" {
			results[m.ToolCallID]++
		}
	}
	if echoed == nil || len(echoed.ToolCalls) != len(calls) {
		t.Fatalf("follow-up %s does not echo the %d calls", last.Shape(), len(calls))
	}
	for i, c := range calls {
		w := echoed.ToolCalls[i]
		if w.ID != c.ID || w.Function.Name != c.Name || w.Function.Arguments != c.Arguments || results[c.ID] != 1 {
			t.Fatalf("call %d echoed as %+v with %d results, want %+v", i, w, results[c.ID], c)
		}
	}
	return last.Shape()
}

// recordedReply serves a recording: status, headers, and the body, an SSE
// body one frame per write as a server flushes it.
func recordedReply(meta fixtureMeta, body []byte) oaitest.Reply {
	return oaitest.Func(func(w http.ResponseWriter, _ *http.Request, _ oaitest.Request) bool {
		for k, v := range meta.Headers {
			if strings.EqualFold(k, "Content-Length") || strings.EqualFold(k, "Transfer-Encoding") || strings.EqualFold(k, "Content-Encoding") {
				continue
			}
			var vs []string
			if json.Unmarshal(v, &vs) != nil {
				var one string
				_ = json.Unmarshal(v, &one)
				vs = []string{one}
			}
			w.Header()[http.CanonicalHeaderKey(k)] = vs
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		status := meta.Status
		if status == 0 {
			status = 200
		}
		w.WriteHeader(status)
		flusher := w.(http.Flusher)
		body := body // served again on every retry
		for len(body) > 0 {
			frame := body
			if i := bytes.Index(body, []byte("\n\n")); i >= 0 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
				frame = body[:i+2]
			}
			if _, err := w.Write(frame); err != nil {
				return false
			}
			flusher.Flush()
			body = body[len(frame):]
		}
		return true
	})
}
