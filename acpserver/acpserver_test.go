package acpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/agent"
	"github.com/chatrepl/chat/control"
	"github.com/chatrepl/chat/session"
)

func TestStopReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out    agent.Outcome
		finish string
		want   acp.StopReason
	}{
		{agent.Outcome{}, "stop", acp.StopReasonEndTurn},
		{agent.Outcome{Err: control.ErrCancelled}, "", acp.StopReasonCancelled},
		{agent.Outcome{Result: agent.Result{Interrupted: true}}, "", acp.StopReasonCancelled},
		{agent.Outcome{Result: agent.Result{Synthesized: true}}, "stop", acp.StopReasonMaxTurnRequests},
		{agent.Outcome{}, "content_filter", acp.StopReasonRefusal},
		{agent.Outcome{}, "length", acp.StopReasonMaxTokens},
		{agent.Outcome{Err: &agent.PromptBlockedError{Reason: "no"}}, "", acp.StopReasonRefusal},
	}
	for _, tt := range tests {
		if got := stopReason(tt.out, tt.finish); got != tt.want {
			t.Errorf("stopReason(%+v, %q) = %s, want %s", tt.out, tt.finish, got, tt.want)
		}
	}
}

func TestPromptContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	linked := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(linked, []byte("linked words"), 0o600); err != nil {
		t.Fatal(err)
	}
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n"))
	text, files, err := promptContent([]acp.ContentBlock{
		acp.TextBlock("first"),
		acp.ResourceLinkBlock("a.txt", "file://"+linked),
		acp.ResourceLinkBlock("docs", "https://example.com/docs"),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: "file:///x/y.go", Text: "package y"}}),
		acp.ImageBlock(png, "image/png"),
		acp.TextBlock("last"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if text != "first\n\n[docs](https://example.com/docs)\n\nlast" {
		t.Errorf("text %q", text)
	}
	if len(files) != 3 || string(files[0].Data) != "linked words" || files[1].Filename != "/x/y.go" || files[2].MediaType != "image/png" {
		t.Errorf("files %+v", files)
	}
	for _, bad := range []acp.ContentBlock{
		acp.ImageBlock("not base64!", "image/png"),
		acp.ResourceLinkBlock("gone", "file://"+filepath.Join(dir, "missing")),
		acp.ResourceBlock(acp.EmbeddedResourceResource{BlobResourceContents: &acp.BlobResourceContents{Uri: "file:///b.bin", Blob: "AAAA", MimeType: acp.Ptr("application/octet-stream")}}),
		acp.AudioBlock("AAAA", "audio/wav"),
	} {
		if _, _, err := promptContent([]acp.ContentBlock{bad}); err == nil {
			raw, _ := json.Marshal(bad)
			t.Errorf("%s was accepted", raw)
		}
	}
}

// TestReplay: a saved conversation as the updates an editor shows, with
// calls under their ids and what was rewound left out.
func TestReplay(t *testing.T) {
	t.Parallel()
	call := session.ToolCall{ID: "c1", Name: "edit_file", Arguments: `{"path":"a.go","old_string":"x","new_string":"y"}`}
	asked := session.User("change it")
	gone := session.User("never mind")
	gone.Rewound = true
	answer := session.Assistant("done", call)
	answer.Reasoning = "thinking"
	msgs := []session.Message{session.System("sys"), asked, answer, session.ToolError(call, "no such text", "execution"), gone, session.Assistant("bye")}
	var kinds []string
	for _, u := range replay(msgs, "/w") {
		raw, _ := json.Marshal(u)
		var k struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		_ = json.Unmarshal(raw, &k)
		kinds = append(kinds, k.SessionUpdate)
		if k.SessionUpdate == "tool_call" && (!strings.Contains(string(raw), `"path":"/w/a.go"`) || !strings.Contains(string(raw), `"oldText":"x"`)) {
			t.Errorf("the call: %s", raw)
		}
		if k.SessionUpdate == "tool_call_update" && !strings.Contains(string(raw), `"status":"failed"`) {
			t.Errorf("the failed result: %s", raw)
		}
		if strings.Contains(string(raw), "never mind") || strings.Contains(string(raw), "sys") {
			t.Errorf("replayed what it should not: %s", raw)
		}
	}
	want := "user_message_chunk agent_thought_chunk agent_message_chunk tool_call tool_call_update agent_message_chunk"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("replay:\n got %s\nwant %s", got, want)
	}
}

// TestOutboxJoinsWaitingChunks: chunks that wait behind a slow write are
// joined in order; a running call's output keeps only its latest state;
// nothing else merges.
func TestOutboxJoinsWaitingChunks(t *testing.T) {
	t.Parallel()
	o := &outbox{held: true, wake: make(chan struct{}, 1)}
	o.push(update{u: acp.UpdateAgentMessageText("a")})
	o.push(update{u: acp.UpdateAgentMessageText("b")})
	o.push(update{u: acp.UpdateAgentThoughtText("t")})
	o.push(update{key: "output c1", u: acp.UpdateToolCall("c1", acp.WithUpdateTitle("1"))})
	o.push(update{u: acp.UpdateAgentMessageText("c")})
	o.push(update{key: "output c1", u: acp.UpdateToolCall("c1", acp.WithUpdateTitle("2"))})
	if len(o.queue) != 4 {
		t.Fatalf("%d updates queued", len(o.queue))
	}
	if got := o.queue[0].u.AgentMessageChunk.Content.Text.Text; got != "ab" {
		t.Errorf("joined %q", got)
	}
	if got := *o.queue[2].u.ToolCallUpdate.Title; got != "2" {
		t.Errorf("the output update kept %q", got)
	}
	// The head may be on the wire: never touched.
	o.sending = true
	o.queue = o.queue[:1]
	o.push(update{u: acp.UpdateAgentMessageText("z")})
	if len(o.queue) != 2 || o.queue[0].u.AgentMessageChunk.Content.Text.Text != "ab" {
		t.Errorf("the head changed while sending: %+v", o.queue)
	}
}

func TestEndCallShowsTheError(t *testing.T) {
	t.Parallel()
	raw, _ := json.Marshal(endCall("c", "run_shell", "", errors.New("exit 3")))
	if !strings.Contains(string(raw), "exit 3") || !strings.Contains(string(raw), `"status":"failed"`) {
		t.Errorf("%s", raw)
	}
}
