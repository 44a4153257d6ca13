package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/oaitest"
)

// acpInProcess runs chat acp in-process, an editor on its pipes.
func (w *world) acpInProcess(args ...string) *acpEditor {
	w.t.Helper()
	d, _, _ := w.deps()
	d.stderr = io.Discard
	toChat, editorOut := io.Pipe()
	chatOut, toEditor := io.Pipe()
	d.stdin, d.stdout = toChat, toEditor
	done := make(chan error, 1)
	go func() {
		cmd := newRootCmd(d, nil)
		cmd.SetArgs(append([]string{"acp"}, args...))
		done <- cmd.Execute()
		toEditor.Close()
	}()
	return connectEditor(w.t, editorOut, chatOut, func() error { return <-done }, func() { toChat.Close() })
}

// TestACPInProcess: chat acp's wiring, in-process: a session opens in the
// editor's folder, a prompt is answered through the run, the screenless
// commands and modes are offered, and session/list finds the session.
func TestACPInProcess(t *testing.T) {
	t.Parallel()
	srv := oaitest.New(t)
	srv.SetFallback(oaitest.Scripted(0))
	w := newWorld(t, srv)
	writeConfig(t, w.home, "[sandbox]\nmode = \"off\"\n[agents.reviewer]\ninstructions = \"You review.\"\ntools = [\"read_file\"]\n")
	e := w.acpInProcess()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := e.newSession(ctx, w.wd)
	from := e.count()
	resp, err := e.prompt(ctx, id, acp.TextBlock("hello"))
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.Contains(e.text(from), "scripted demo model") {
		t.Fatalf("%+v %v %q", resp, err, e.text(from))
	}
	from = e.count()
	if _, err := e.prompt(ctx, id, acp.TextBlock("/context")); err != nil || !strings.Contains(e.text(from), "system") {
		t.Fatalf("/context: %v %q", err, e.text(from))
	}
	if _, err := e.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: id, ModeId: "reviewer"}); err != nil {
		t.Fatalf("mode: %v", err)
	}
	list, err := e.conn.ListSessions(ctx, acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || string(list.Sessions[0].SessionId) != string(id) {
		t.Fatalf("list: %+v %v", list, err)
	}
}
