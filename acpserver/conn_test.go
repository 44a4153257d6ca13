package acpserver

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/acptest"
	"github.com/chatrepl/chat/internal/oaitest"
)

// editor is an editor on the other end of an in-process connection (the
// ACP Go SDK's client side), talking to sessions that are app runs
// against a scripted model.
type editor struct {
	acptest.NoFiles
	t     *testing.T
	conn  *acp.ClientSideConnection
	model *oaitest.Server
	work  string

	mu      sync.Mutex
	updates []acp.SessionUpdate
	asked   []acp.RequestPermissionRequest
	answer  string // the option picked ("" cancels)
	hold    chan struct{}
}

func newEditor(t *testing.T, replies ...oaitest.Reply) *editor {
	t.Helper()
	model := oaitest.New(t, replies...)
	model.SetFallback(oaitest.Echoer{}.Reply)
	home, work := t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME": filepath.Join(home, ".local", "state"), "PATH": os.Getenv("PATH")}
	cfg := config.Config{BaseURL: model.BaseURL(), Model: "scripted-model", Sources: map[string]string{}}
	cfg.Sandbox.Mode = "off"
	spec := app.Spec{Config: cfg, Env: app.Env{Workdir: work, Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil }, Stderr: io.Discard}}
	ctx, cancel := context.WithCancel(context.Background())
	toAgent, fromEditor := io.Pipe()
	toEditor, fromAgent := io.Pipe()
	served := make(chan struct{})
	go func() {
		_ = ServeRuns(ctx, spec, Options{Name: "chat", Version: "test", Log: io.Discard}, toAgent, fromAgent)
		fromAgent.Close()
		close(served)
	}()
	e := &editor{t: t, model: model, work: work, answer: optionAllow}
	e.conn = acp.NewClientSideConnection(e, fromEditor, toEditor)
	t.Cleanup(func() { fromEditor.Close(); cancel(); <-served })
	return e
}

func (e *editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	e.mu.Unlock()
	return nil
}

func (e *editor) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, p)
	answer, hold := e.answer, e.hold
	e.mu.Unlock()
	if hold != nil {
		close(hold)
		<-ctx.Done()
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	if answer == "" {
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(acp.PermissionOptionId(answer))}, nil
}

func (e *editor) open(ctx context.Context) acp.SessionId {
	e.t.Helper()
	if _, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		e.t.Fatal(err)
	}
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: e.work, McpServers: []acp.McpServer{}})
	if err != nil {
		e.t.Fatal(err)
	}
	return s.SessionId
}

func (e *editor) prompt(ctx context.Context, id acp.SessionId, text string) (acp.PromptResponse, error) {
	return e.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// said is the agent's message text from update from on.
func (e *editor) said(from int) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, u := range e.updates[from:] {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

func (e *editor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.updates)
}

func writeCall(path string) oaitest.Reply {
	args, _ := json.Marshal(map[string]string{"path": path, "content": "x\n"})
	return oaitest.Answer{Calls: []oaitest.Call{{ID: "w-" + path, Name: "write_file", Args: string(args)}}}
}

// TestEditorPromptsAndAnswers: a prompt is a turn whose answer streams as
// the agent's message and ends with end_turn and usage.
func TestEditorPromptsAndAnswers(t *testing.T) {
	e := newEditor(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.open(ctx)
	from := e.count()
	resp, err := e.prompt(ctx, id, "hello there")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Usage == nil {
		t.Fatalf("%+v %v", resp, err)
	}
	if got := e.said(from); got == "" {
		t.Fatal("no answer streamed")
	}
	if _, err := e.prompt(ctx, "nope", "hi"); err == nil {
		t.Fatal("a prompt to no session was taken")
	}
}

// TestEditorRejectDenies: the editor's Reject refuses the call (nothing
// written), its Allow lets it run, and a cancelled question refuses too.
func TestEditorRejectDenies(t *testing.T) {
	e := newEditor(t, writeCall("rejected.txt"), oaitest.Answer{Text: "ok"}, writeCall("cancelled.txt"), oaitest.Answer{Text: "ok"},
		writeCall("allowed.txt"), oaitest.Answer{Text: "ok"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.open(ctx)
	for _, c := range []struct{ answer, file string }{{optionReject, "rejected.txt"}, {"", "cancelled.txt"}, {optionAllow, "allowed.txt"}} {
		e.mu.Lock()
		e.answer = c.answer
		e.mu.Unlock()
		if _, err := e.prompt(ctx, id, "write "+c.file); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(filepath.Join(e.work, c.file))
		if written := err == nil; written != (c.answer == optionAllow) {
			t.Errorf("answer %q: written %v", c.answer, written)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.asked) != 3 || len(e.asked[0].Options) < 2 {
		t.Fatalf("asked %d times: %+v", len(e.asked), e.asked)
	}
}

// TestClosingASessionCancelsItsTurn: an editor that closes a session
// while its turn waits gets the prompt back, cancelled.
func TestClosingASessionCancelsItsTurn(t *testing.T) {
	e := newEditor(t, writeCall("never.txt"))
	hold := make(chan struct{})
	e.hold = hold
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.open(ctx)
	done := make(chan acp.PromptResponse, 1)
	go func() {
		resp, _ := e.prompt(ctx, id, "write never.txt")
		done <- resp
	}()
	<-hold // the turn waits on the editor's answer
	if _, err := e.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case resp := <-done:
		if resp.StopReason != acp.StopReasonCancelled {
			t.Fatalf("stop reason %s", resp.StopReason)
		}
	case <-ctx.Done():
		t.Fatal("closing the session did not end its turn")
	}
	if _, err := os.Stat(filepath.Join(e.work, "never.txt")); err == nil {
		t.Fatal("the closed session's call ran")
	}
}

// TestEditorListsLoadsAndSteers: the saved session is listed for its
// folder; loaded again it replays its history before the answer; text
// steered in with no turn running is refused with a reason; a session
// without modes says so.
func TestEditorListsLoadsAndSteers(t *testing.T) {
	e := newEditor(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.open(ctx)
	if _, err := e.prompt(ctx, id, "remember the number 42"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.conn.CallExtension(ctx, SteerMethod, map[string]any{"sessionId": id, "text": "late"}); err == nil || !strings.Contains(err.Error(), "no turn is running") {
		t.Fatalf("steering with no turn: %v", err)
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: id, ModeId: "read-only"}); err == nil {
		t.Fatal("a session without modes switched mode")
	}
	list, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &e.work})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id {
		t.Fatalf("list %+v %v", list, err)
	}
	if _, err := e.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: e.work, McpServers: []acp.McpServer{}}); err == nil {
		t.Fatal("a session open on this connection was loaded twice")
	}
	if _, err := e.conn.CloseSession(ctx, acp.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	from := e.count()
	if _, err := e.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: id, Cwd: e.work, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	var replayed []string
	for _, u := range e.updates[from:] {
		if c := u.UserMessageChunk; c != nil && c.Content.Text != nil {
			replayed = append(replayed, c.Content.Text.Text)
		}
	}
	e.mu.Unlock()
	if strings.Join(replayed, "|") != "remember the number 42" {
		t.Fatalf("replayed %q", replayed)
	}
	if _, err := e.prompt(ctx, id, "and now?"); err != nil {
		t.Fatalf("the loaded session does not go on: %v", err)
	}
}
