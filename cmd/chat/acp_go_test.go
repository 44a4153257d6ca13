package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/acptest"
	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
)

// acpEditor is an editor on the other end of chat acp, built on the Go
// SDK's client side: it collects updates, answers permission requests
// with allow, and checks that every line chat writes to stdout is a
// JSON-RPC message.
type acpEditor struct {
	acptest.NoFiles
	t    *testing.T
	conn *acp.ClientSideConnection
	in   io.WriteCloser

	mu          sync.Mutex
	updates     []acp.SessionUpdate
	permissions int
	titles      []string // the permission requests' titles
	hold        bool     // permission requests wait until cancelled
	stray       []string // stdout lines that are not JSON-RPC
}

func startEditor(t *testing.T, cmd *exec.Cmd) *acpEditor {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return connectEditor(t, in, out, cmd.Wait, func() { cmd.Process.Kill() })
}

// connectEditor is an editor on chat acp's stdin (in) and stdout (out);
// wait returns once chat acp ended, kill ends it at once where that can
// be done.
func connectEditor(t *testing.T, in io.WriteCloser, out io.Reader, wait func() error, kill func()) *acpEditor {
	t.Helper()
	e := &acpEditor{t: t, in: in}
	pr, pw := io.Pipe()
	go func() { // every line must be a message
		lines := bufio.NewScanner(out)
		lines.Buffer(nil, 16<<20)
		for lines.Scan() {
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.JSONRPC != "2.0" {
				e.mu.Lock()
				e.stray = append(e.stray, lines.Text())
				e.mu.Unlock()
				continue
			}
			pw.Write(append(lines.Bytes(), '\n'))
		}
		pw.Close()
	}()
	e.conn = acp.NewClientSideConnection(e, in, pr)
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			kill()
			t.Error("chat acp did not exit after its stdin closed")
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if len(e.stray) > 0 {
			t.Errorf("chat acp wrote to stdout outside the protocol: %q", e.stray)
		}
	})
	return e
}

func (e *acpEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	e.mu.Unlock()
	return nil
}

func (e *acpEditor) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.permissions++
	if p.ToolCall.Title != nil {
		e.titles = append(e.titles, *p.ToolCall.Title)
	}
	hold := e.hold
	e.mu.Unlock()
	if hold {
		<-ctx.Done() // the agent withdrew the question
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)}, nil
}

// text is the agent's message chunks from update from on.
func (e *acpEditor) text(from int) string {
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

func (e *acpEditor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.updates)
}

// newSession initializes and opens a session in dir.
func (e *acpEditor) newSession(ctx context.Context, dir string, servers ...acp.McpServer) acp.SessionId {
	e.t.Helper()
	if _, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		e.t.Fatal(err)
	}
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: dir, McpServers: append([]acp.McpServer{}, servers...)})
	if err != nil {
		e.t.Fatal(err)
	}
	return s.SessionId
}

func (e *acpEditor) prompt(ctx context.Context, id acp.SessionId, blocks ...acp.ContentBlock) (acp.PromptResponse, error) {
	return e.conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: blocks})
}

// TestACPEditorMCPAndAttachments: an MCP server the editor passes is
// connected at once and its tool runs after the editor approves it; a
// prompt's embedded resource, file link and image reach the model.
func TestACPEditorMCPAndAttachments(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	var mu sync.Mutex
	var offered []string
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "tool":
			return oaitest.Answer{Text: "echoed: " + last.Text()}
		case strings.Contains(last.Text(), "use the echo tool"):
			mu.Lock()
			offered = req.ToolNames()
			mu.Unlock()
			return oaitest.Answer{Calls: []oaitest.Call{{ID: "m1", Name: "ed__echo", Args: `{"text":"from the editor's server"}`}}}
		}
		return oaitest.Answer{Text: "got it"}
	})
	base := command(t, srv, "acp")
	dir := base.Dir
	if err := os.WriteFile(filepath.Join(dir, "linked.txt"), []byte("the linked file's words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, dir, acp.McpServer{Stdio: &acp.McpServerStdio{Name: "ed", Command: os.Args[0],
		Args: []string{}, Env: []acp.EnvVariable{{Name: mcptest.EnvServe, Value: "1"}}}})

	from := e.count()
	resp, err := e.prompt(ctx, id, acp.TextBlock("use the echo tool"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("%+v %v", resp, err)
	}
	mu.Lock()
	tools := strings.Join(offered, " ")
	mu.Unlock()
	if !strings.Contains(tools, "ed__echo") || !strings.Contains(e.text(from), "from the editor's server") || e.permissions != 1 {
		t.Errorf("tools %s; answer %q; %d permission requests", tools, e.text(from), e.permissions)
	}

	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	_, err = e.prompt(ctx, id, acp.TextBlock("look at these"),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: "file:///src/main.go", Text: "package main // embedded words"}}),
		acp.ResourceLinkBlock("linked.txt", "file://"+filepath.Join(dir, "linked.txt")),
		acp.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	raw, _ := json.Marshal(reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1])
	for _, want := range []string{"look at these", "embedded words", "the linked file's words", "data:image/png;base64,"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the prompt's request has no %q: %s", want, raw)
		}
	}
}

// TestACPStepBudgetAndErrors: an exhausted step budget ends the prompt
// with max_turn_requests after the synthesized answer has streamed; a
// model error fails the prompt with its reason, and the session goes on.
func TestACPStepBudgetAndErrors(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case len(req.Tools) == 0: // the synthesizer
			return oaitest.Answer{Text: "synthesized from what was gathered"}
		case strings.Contains(last.Text(), "fail now"):
			return oaitest.Fail{Status: 500, Message: "the model is down"}
		case last.Role == "tool" || strings.Contains(last.Text(), "loop"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("l%d", req.Index), Name: "list_files", Args: `{"path":"."}`}}}
		}
		return oaitest.Answer{Text: "fine again"}
	})
	e := startEditor(t, command(t, srv, "acp", "--max-steps", "2"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, t.TempDir())
	from := e.count()
	resp, err := e.prompt(ctx, id, acp.TextBlock("loop forever"))
	if err != nil || resp.StopReason != acp.StopReasonMaxTurnRequests || !strings.Contains(e.text(from), "synthesized from what was gathered") {
		t.Fatalf("budget: %+v %v, text %q", resp, err, e.text(from))
	}
	// A failure ends the turn with a reason and the error as the agent's
	// message (not a JSON-RPC error that hides it).
	from = e.count()
	if resp, err := e.prompt(ctx, id, acp.TextBlock("fail now")); err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.Contains(e.text(from), "500") {
		t.Errorf("a failing model: %+v %v %q", resp, err, e.text(from))
	}
	from = e.count()
	if resp, err := e.prompt(ctx, id, acp.TextBlock("and now?")); err != nil || e.text(from) != "fine again" {
		t.Errorf("after the error: %+v %v %q", resp, err, e.text(from))
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Errorf("strict server refused: %v", rej)
	}
}

// TestACPModesSwitchThePersona: the editor's modes name the personas (with
// the sandbox's box modes where there is a box); choosing one makes the
// next turn that persona's, and going back restores the default agent.
func TestACPModesSwitchThePersona(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "one"}, oaitest.Answer{Text: "two"}, oaitest.Answer{Text: "three"})
	cmd := command(t, srv, "acp")
	home := strings.TrimPrefix(cmd.Env[0], "HOME=")
	writeConfig(t, home, "[agents.reviewer]\ninstructions = \"You review code and change nothing.\"\ndescription = \"reads and reviews\"\n")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	s, err := e.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cmd.Dir, McpServers: []acp.McpServer{}})
	if err != nil || s.Modes == nil {
		t.Fatalf("%+v %v", s, err)
	}
	var ids []string
	for _, m := range s.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	reviewer, plain := "reviewer", "default"
	if strings.Contains(strings.Join(ids, " "), "workspace-write") {
		reviewer, plain = "workspace-write/reviewer", "workspace-write"
	}
	if !strings.Contains(" "+strings.Join(ids, " ")+" ", " "+reviewer+" ") || string(s.Modes.CurrentModeId) != plain {
		t.Fatalf("modes %v, current %s", ids, s.Modes.CurrentModeId)
	}
	system := func() string {
		reqs := srv.Requests()
		return reqs[len(reqs)-1].Messages[0].Text()
	}
	if _, err := e.prompt(ctx, s.SessionId, acp.TextBlock("hi")); err != nil || strings.Contains(system(), "You review code") {
		t.Fatalf("before the switch: %v %q", err, system())
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: s.SessionId, ModeId: acp.SessionModeId(reviewer)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(ctx, s.SessionId, acp.TextBlock("review")); err != nil || !strings.HasPrefix(system(), "You review code") {
		t.Fatalf("as the reviewer: %v %q", err, system())
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: s.SessionId, ModeId: acp.SessionModeId(plain)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(ctx, s.SessionId, acp.TextBlock("back")); err != nil || strings.Contains(system(), "You review code") {
		t.Fatalf("back to the default: %v %q", err, system())
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "off"}); err == nil {
		t.Errorf("a mode that turns the sandbox off was accepted")
	}
}

// TestACPRefusalAndNothingToCompact: session/list; a message the person's
// UserPromptSubmit hook refuses ends the prompt with refusal and says why;
// /compact with nothing to fold says so and ends the turn.
func TestACPRefusalAndNothingToCompact(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "fine"} })
	cmd := command(t, srv, "acp")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[[hooks.UserPromptSubmit]]\ncommand = \"grep -q forbidden && { echo 'not that topic' >&2; exit 2; } || exit 0\"\n")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	from := e.count()
	resp, err := e.prompt(ctx, id, acp.TextBlock("/compact"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.Contains(e.text(from), "nothing") {
		t.Errorf("/compact at the start: %+v %v %q", resp, err, e.text(from))
	}
	from = e.count()
	resp, err = e.prompt(ctx, id, acp.TextBlock("the forbidden question"))
	if err != nil || resp.StopReason != acp.StopReasonRefusal || !strings.Contains(e.text(from), "not that topic") || srv.RequestCount() != 0 {
		t.Errorf("a refused message: %+v %v %q, %d requests", resp, err, e.text(from), srv.RequestCount())
	}
	if resp, err := e.prompt(ctx, id, acp.TextBlock("an allowed one")); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("after the refusal: %+v %v", resp, err)
	}
	// session/list: the saved sessions of the folder, this one among them.
	list, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: acp.Ptr(cmd.Dir)})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].UpdatedAt == nil {
		t.Errorf("session/list: %+v %v", list, err)
	}
	if other, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: acp.Ptr("/elsewhere")}); err != nil || len(other.Sessions) != 0 {
		t.Errorf("session/list of another folder: %+v %v", other, err)
	}
}

// TestACPSaysWhichBoxIsInForce: the first command of a session tells the
// editor, as a thought, which box it runs in (the engine named).
func TestACPSaysWhichBoxIsInForce(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	srv := oaitest.New(t)
	srv.SetFallback(calls(shellCall("c1", "echo boxed")))
	cmd := command(t, srv, "acp")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	if resp, err := e.prompt(ctx, id, acp.TextBlock("run it")); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("%+v %v", resp, err)
	}
	e.mu.Lock()
	var thoughts strings.Builder
	for _, u := range e.updates {
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			thoughts.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	e.mu.Unlock()
	if !regexp.MustCompile(`sandbox workspace-write \((bubblewrap|namespaces|Landlock)[^)]*\)`).MatchString(thoughts.String()) {
		t.Errorf("the editor was not told which box is in force:\n%s", thoughts.String())
	}
}

// TestACPApprovalTitlesCountLines: a file of three lines, each ending in
// a newline, is "3 lines" in the permission request (it said 4).
func TestACPApprovalTitlesCountLines(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(calls(oaitest.Call{ID: "w1", Name: "write_file", Args: `{"path":"three.txt","content":"a\nb\nc\n"}`}))
	cmd := command(t, srv, "acp")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[sandbox]\nmode = \"off\"\n")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	if _, err := e.prompt(ctx, id, acp.TextBlock("write it")); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.titles) != 1 || !strings.Contains(e.titles[0], "three.txt (3 lines)") {
		t.Fatalf("permission titles: %q", e.titles)
	}
}

// TestACPAsksALocalServerItsWindow: chat acp against a llama.cpp-style
// server that says its window in /props knows it, as the REPL does
// (/context said "the model's window is not known").
func TestACPAsksALocalServerItsWindow(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetWindow(4096)
	srv.SayWindow()
	srv.SetFallback(func(oaitest.Request) oaitest.Reply { return oaitest.Answer{Text: "fine"} })
	cmd := command(t, srv, "acp")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	var text string
	for deadline := time.Now().Add(10 * time.Second * loadAllowance); ; time.Sleep(50 * time.Millisecond) {
		from := e.count()
		if _, err := e.prompt(ctx, id, acp.TextBlock("/context")); err != nil {
			t.Fatal(err)
		}
		if text = e.text(from); strings.Contains(text, "4,096") || strings.Contains(text, "4096") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(text, "4,096") && !strings.Contains(text, "4096") {
		t.Fatalf("/context in chat acp does not know the window:\n%s", text)
	}
}

// TestACPCancelEndsTheCallThatWaited: cancelling while a permission
// request is open ends the prompt with "cancelled" and, before that, gives
// the waiting call a final status (it stayed pending for ever).
func TestACPCancelEndsTheCallThatWaited(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(calls(oaitest.Call{ID: "w1", Name: "write_file", Args: `{"path":"x.txt","content":"x\n"}`}))
	cmd := command(t, srv, "acp")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[sandbox]\nmode = \"off\"\n")
	e := startEditor(t, cmd)
	e.hold = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	done := make(chan acp.PromptResponse, 1)
	go func() {
		resp, _ := e.prompt(ctx, id, acp.TextBlock("write it"))
		done <- resp
	}()
	for deadline := time.Now().Add(30 * time.Second * loadAllowance); e.countPermissions() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("chat acp never asked for permission")
		}
	}
	if err := e.conn.Cancel(ctx, acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	resp := <-done
	if resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var last acp.ToolCallStatus
	for _, u := range e.updates {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "w1" {
			last = u.ToolCall.Status
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "w1" && u.ToolCallUpdate.Status != nil {
			last = *u.ToolCallUpdate.Status
		}
	}
	if last != acp.ToolCallStatusFailed {
		t.Fatalf("the call that waited for permission ends %q", last)
	}
}

func (e *acpEditor) countPermissions() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.permissions
}

// TestACPTooLargeEndsWithAReason: a window too small for even the fixed
// prompt ends the turn with max_tokens and the advice as the agent's
// message (it was a JSON-RPC internal error, the advice hidden in data);
// the session goes on.
func TestACPTooLargeEndsWithAReason(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t, oaitest.Answer{Text: "unreachable"})
	srv.SetWindow(300)
	cmd := command(t, srv, "acp")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	for range 2 {
		from := e.count()
		resp, err := e.prompt(ctx, id, acp.TextBlock("hello"))
		if err != nil {
			t.Fatalf("the prompt failed as a protocol error: %v", err)
		}
		if resp.StopReason != acp.StopReasonMaxTokens || !strings.Contains(e.text(from), "window") {
			t.Fatalf("stop %q, message %q", resp.StopReason, e.text(from))
		}
	}
}
