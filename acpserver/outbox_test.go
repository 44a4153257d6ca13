package acpserver

import (
	"context"
	"io"
	"testing"

	"github.com/coder/acp-go-sdk"
)

// TestStopWhileAnUpdateIsOnItsWay: a session closed while its outbox
// writes an update (a slow editor) ends the outbox cleanly; the queue
// stop emptied is not cut again (it panicked: slice bounds out of range).
func TestStopWhileAnUpdateIsOnItsWay(t *testing.T) {
	toEditor, fromAgent := io.Pipe()
	nothing, _ := io.Pipe()
	conn := acp.NewAgentSideConnection(New(Options{}), fromAgent, nothing)
	o := newOutbox(context.Background(), conn)
	o.release()
	o.push(update{u: acp.UpdateAgentMessageText("on its way")})
	buf := make([]byte, 1)
	if _, err := toEditor.Read(buf); err != nil { // the write has begun and waits for the editor
		t.Fatal(err)
	}
	o.stop()
	go func() { _, _ = io.Copy(io.Discard, toEditor) }() // the editor reads the rest
	<-o.done
	o.flush() // returns: stopped
}
