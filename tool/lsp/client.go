package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// Starter runs a server's command in dir with its standard streams and
// returns when it has ended; cancelling ctx must end it (the run's box
// kills its process group).
type Starter func(ctx context.Context, argv []string, dir string, stdin io.Reader, stdout, stderr io.Writer) error

// published is what a server last said of one file.
type published struct {
	seq     uint64 // the connection's count of publishes when it came
	version int32  // the document version it was for (0: not said)
	diags   []protocol.Diagnostic
}

// conn is one running server for one root.
type conn struct {
	server Server
	root   string
	kill   context.CancelFunc
	rpc    jsonrpc2.Conn
	remote protocol.Server
	ended  chan struct{} // closed when the process has ended
	stderr *tail

	mu      sync.Mutex
	seq     uint64
	files   map[string]published
	open    map[string]int32 // path → the version last sent
	changed chan struct{}    // closed and replaced at each publish
	endErr  error
	// pulls: the server answers what it thinks of a file when asked
	// (typescript-language-server's tsserver), which is the end of its
	// check; its pushes are not waited for.
	pulls bool
}

// rwc joins the server's stdout (read) and stdin (write) into one stream.
type rwc struct {
	io.Reader
	w io.WriteCloser
	c io.Closer
}

func (s rwc) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s rwc) Close() error                { s.w.Close(); return s.c.Close() }

// tail keeps the last bytes a server wrote on stderr, to say why it failed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = t.buf[len(t.buf)-2048:]
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// dial starts s for root and completes the protocol's handshake within bound.
func dial(start Starter, s Server, root string, bound time.Duration) (*conn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, kill := context.WithCancel(context.Background())
	c := &conn{server: s, root: root, kill: kill, ended: make(chan struct{}), stderr: &tail{},
		files: map[string]published{}, open: map[string]int32{}, changed: make(chan struct{})}
	go func() {
		err := start(ctx, s.Command, root, inR, outW, c.stderr)
		c.mu.Lock()
		c.endErr = err
		c.mu.Unlock()
		outW.CloseWithError(io.EOF)
		inR.Close()
		close(c.ended)
	}()
	stream := jsonrpc2.NewStream(rwc{Reader: outR, w: inW, c: outR})
	_, c.rpc, c.remote = protocol.NewClient(ctx, client{c}, stream, zap.NewNop())

	ictx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	folder := []protocol.WorkspaceFolder{{URI: string(uri.File(root)), Name: root}}
	params := initializeParams{InitializeParams: protocol.InitializeParams{
		ClientInfo: &protocol.ClientInfo{Name: "chat"},
		// Deprecated for workspaceFolders, but servers still read them
		// (clangd, older pyright): both are sent.
		//lint:ignore SA1019 servers of today still read it
		RootURI: uri.File(root),
		//lint:ignore SA1019 servers of today still read it
		RootPath: root,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
			},
		},
		WorkspaceFolders: folder,
	}}
	var result protocol.InitializeResult
	_, err := c.rpc.Call(ictx, protocol.MethodInitialize, params, &result)
	if err == nil {
		err = c.remote.Initialized(ictx, &protocol.InitializedParams{})
	}
	if err != nil {
		// Why, before the end chat causes hides it: the server's own
		// last words when it ended, else what the handshake met.
		select {
		case <-c.ended:
		case <-time.After(100 * time.Millisecond):
		}
		why := c.failure(err)
		c.close(0)
		return nil, why
	}
	c.pulls = asksTsserver(result.Capabilities)
	return c, nil
}

// initializeParams says no processId: the server runs in the box's own
// PID namespace, where chat's pid is no process (or another one), and a
// server that watches its parent's pid (the Node.js servers do, every 3
// s) would end itself. The box ends the server with chat instead.
type initializeParams struct {
	protocol.InitializeParams
	ProcessID *int32 `json:"processId"`
}

// failure says why a server could not be used: its own last words when it
// ended, else err.
func (c *conn) failure(err error) error {
	select {
	case <-c.ended:
		if line := c.stderr.lastLine(); line != "" {
			return fmt.Errorf("it ended: %s", line)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.endErr != nil {
			return fmt.Errorf("it ended: %v", c.endErr)
		}
		return errors.New("it ended")
	default:
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.New("it did not answer in time")
	}
	return err
}

// alive reports whether the server still runs.
func (c *conn) alive() bool {
	select {
	case <-c.ended:
		return false
	default:
		return true
	}
}

// close asks the server to shut down (waiting at most grace), then ends it.
func (c *conn) close(grace time.Duration) {
	if grace > 0 && c.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if c.remote.Shutdown(ctx) == nil {
			_ = c.remote.Exit(ctx)
			select {
			case <-c.ended:
			case <-ctx.Done():
			}
		}
		cancel()
	}
	c.kill()
	_ = c.rpc.Close()
	<-c.ended
}

// sync sends a file's text as it is now (or its closing, when it is gone)
// and returns the publish count before it, to wait for what comes after.
func (c *conn) sync(ctx context.Context, path string) (since uint64, version int32, err error) {
	text, rerr := os.ReadFile(path)
	c.mu.Lock()
	since = c.seq
	v, isOpen := c.open[path]
	switch {
	case rerr != nil && isOpen:
		delete(c.open, path)
		delete(c.files, path)
	case rerr == nil:
		v++
		c.open[path] = v
	}
	c.mu.Unlock()
	doc := uri.File(path)
	switch {
	case rerr != nil && isOpen:
		return since, 0, c.remote.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}})
	case rerr != nil:
		return since, 0, nil
	case !isOpen:
		err = c.remote.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: doc, LanguageID: protocol.LanguageIdentifier(languageID(path)), Version: v, Text: string(text)}})
	default:
		// The library's change event always carries a range, which makes
		// a whole text an insertion at the top (docs/upstream/go.lsp.dev-protocol.md):
		// the notification is sent with a change of the text alone.
		err = c.rpc.Notify(ctx, protocol.MethodTextDocumentDidChange, wholeChange{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: doc}, Version: v},
			ContentChanges: []wholeText{{Text: string(text)}}})
	}
	if err == nil {
		err = c.remote.DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: doc}, Text: string(text)})
	}
	return since, v, err
}

// wholeChange is didChange's parameters with the document's whole text.
type wholeChange struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wholeText                              `json:"contentChanges"`
}

type wholeText struct {
	Text string `json:"text"`
}

// fresh reports whether path has a publish after since for its version v.
func (c *conn) fresh(path string, since uint64, v int32) bool {
	p, ok := c.files[path]
	return ok && p.seq > since && (p.version == 0 || v == 0 || p.version >= v)
}

// client answers what a server asks of chat.
type client struct{ c *conn }

func (k client) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	k.c.mu.Lock()
	k.c.keepLocked(p.URI.Filename(), int32(p.Version), p.Diagnostics)
	k.c.mu.Unlock()
	return nil
}

// keepLocked records what the server says of path now and wakes those
// waiting for a verdict; c.mu is held.
func (c *conn) keepLocked(path string, version int32, diags []protocol.Diagnostic) {
	c.seq++
	c.files[path] = published{seq: c.seq, version: version, diags: diags}
	close(c.changed)
	c.changed = make(chan struct{})
}

func (k client) Configuration(_ context.Context, p *protocol.ConfigurationParams) ([]interface{}, error) {
	return make([]interface{}, len(p.Items)), nil
}

func (k client) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return []protocol.WorkspaceFolder{{URI: string(uri.File(k.c.root)), Name: k.c.root}}, nil
}

func (client) Progress(context.Context, *protocol.ProgressParams) error { return nil }
func (client) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (client) LogMessage(context.Context, *protocol.LogMessageParams) error   { return nil }
func (client) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (client) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (client) Telemetry(context.Context, interface{}) error                           { return nil }
func (client) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (client) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}

// ApplyEdit refuses: a server changes files only through the agent's tools.
func (client) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	return false, nil
}
