package acpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chatrepl/chat/app"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// SteerMethod is the extension method that sends text into a running
// turn, as typing during a turn does in the REPL. Its params are
// {"sessionId": …, "text": …}; it answers {"queued": true}, or an error
// when no turn runs (send a session/prompt instead).
const SteerMethod = "_chat/steer"

// Options configure a Server.
type Options struct {
	Name, Version string
	// Open builds a session on chat's wiring: a new one, or the saved one
	// OpenRequest.Load names.
	Open func(ctx context.Context, r OpenRequest) (*Session, error)
	// Log receives the connection's diagnostics (never stdout).
	Log io.Writer
	// List is the saved sessions, newest first, of a folder ("" all), for
	// session/list (nil: not offered).
	List func(cwd string) ([]Saved, error)
}

// Saved is a saved session as session/list shows it.
type Saved struct {
	ID, Cwd, Title string
	Updated        time.Time
}

// OpenRequest is what the wiring needs to build a session.
type OpenRequest struct {
	Cwd  string
	Load string // the id of a saved session to continue; "" for a new one
	MCP  []MCPServer
	// Listener hears the session's events (the list the agent emits to
	// must hold it); Approver asks the person in the editor.
	Listener listener.Listener
	Approver tool.Approver
	// Elicitor shows an MCP server's question in the editor.
	Elicitor app.Elicitor
}

// MCPServer is one MCP server the client passes, to be connected like a
// configured one: a command (stdio) or a URL (streamable HTTP).
type MCPServer = app.EditorServer

// Session is a session the wiring built.
type Session struct {
	ID string
	// Loop runs the session's turns: steering, cancelling, the text
	// sent too late for a turn.
	Loop *app.Loop
	// NewTurn is a turn as the run sends it (plan mode says what it asks
	// of the model).
	NewTurn func(ctx context.Context, model, text string, files ...session.FilePart) *app.Turn
	// Messages is the conversation (a loaded session is replayed).
	Messages func() []session.Message
	// Modes the editor may switch between (nil: none); Mode is the
	// current one, SetMode switches.
	Modes   []Mode
	Mode    string
	SetMode func(id string) error
	// Commands are the /-commands that make sense without a screen.
	Commands []Command
	// Expand turns a prompt's /SERVER:PROMPT and @SERVER:URI into what
	// they name (nil: the text as it is).
	Expand func(ctx context.Context, text string, files []session.FilePart) (string, []session.FilePart, error)
	// Close ends the session. (The run saves the session when a turn
	// ends, healing after a cancel included: app.Run.)
	Close func()
}

// Mode is a session mode: a sandbox mode, a persona, or both.
type Mode = app.Mode

// Command is an advertised /-command (the run's screenless ones).
type Command = app.Command

// CommandResult is what a /-command did.
type CommandResult = app.CommandResult

// Server is an ACP agent over chat sessions.
type Server struct {
	o    Options
	conn *acp.AgentSideConnection
	out  *announcer
	ctx  context.Context // ends when the connection does

	mu       sync.Mutex
	sessions map[string]*live
}

var (
	_ acp.Agent                  = (*Server)(nil)
	_ acp.AgentLoader            = (*Server)(nil)
	_ acp.ExtensionMethodHandler = (*Server)(nil)
)

// New returns a server; Serve runs it.
func New(o Options) *Server { return &Server{o: o, sessions: map[string]*live{}} }

// Serve speaks ACP on r and w until the client closes its end or ctx
// ends, then closes every session.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	s.out = &announcer{w: w}
	// Nothing is read, so no request handled, before the connection is
	// set: a handler reads s.conn (a fast client's first request raced
	// with the assignment).
	gate := &readGate{r: r, open: make(chan struct{})}
	s.conn = acp.NewAgentSideConnection(s, s.out, gate)
	close(gate.open)
	logTo := s.o.Log
	if logTo == nil {
		logTo = io.Discard
	}
	s.conn.SetLogger(slog.New(slog.NewTextHandler(logTo, nil)))
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*live{}
	s.mu.Unlock()
	for _, l := range all {
		l.close()
	}
	return nil
}

// Initialize implements acp.Agent.
func (s *Server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: s.o.Name, Title: acp.Ptr("chat"), Version: s.o.Version},
		AuthMethods:     []acp.AuthMethod{},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			SessionCapabilities: s.sessionCapabilities(),
			McpCapabilities:     acp.McpCapabilities{Http: true},
			Meta: map[string]any{"chat": map[string]any{
				"steer": map[string]any{"method": SteerMethod, "params": []string{"sessionId", "text"},
					"description": "send text into the running turn (the REPL's typing while it runs); it reaches the model at the next step"},
			}},
		},
	}, nil
}

// Authenticate implements acp.Agent: chat takes its key from the
// environment or its config, so there is nothing to do.
func (s *Server) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// NewSession implements acp.Agent.
func (s *Server) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	l, err := s.open(ctx, p.Cwd, "", p.McpServers)
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	return acp.NewSessionResponse{SessionId: acp.SessionId(l.id), Modes: l.modes()}, nil
}

// LoadSession implements acp.AgentLoader: the saved conversation is
// replayed as updates before the answer.
func (s *Server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	id := string(p.SessionId)
	s.mu.Lock()
	_, open := s.sessions[id]
	s.mu.Unlock()
	if open {
		return acp.LoadSessionResponse{}, acp.NewInvalidRequest(map[string]any{"error": "session " + id + " is already open on this connection"})
	}
	l, err := s.open(ctx, p.Cwd, id, p.McpServers)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	// The client knows the session it asked for: the history, then the
	// commands, go out before the answer.
	for _, u := range replay(l.s.Messages(), l.cwd) {
		l.out.push(update{u: u})
	}
	l.announce()
	l.out.flush()
	return acp.LoadSessionResponse{Modes: l.modes()}, nil
}

func (s *Server) open(ctx context.Context, cwd, load string, servers []acp.McpServer) (*live, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", cwd)})
	}
	l := &live{srv: s, cwd: cwd, turn: make(chan struct{}, 1), known: make(chan struct{})}
	l.out = newOutbox(s.ctx, s.conn)
	l.events = &events{out: l.out, cwd: cwd, streamed: map[string]bool{}, output: map[string]string{}}
	s2, err := s.o.Open(ctx, OpenRequest{Cwd: cwd, Load: load, MCP: mcpServers(servers),
		Listener: l.events, Approver: &approver{l: l}, Elicitor: (&elicitor{l: l}).Elicit})
	if err != nil {
		// What the person can fix (a session that is not there or in use,
		// a folder that is not one) is theirs, not an internal error.
		return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	l.s, l.id = s2, s2.ID
	l.out.sessionID = acp.SessionId(l.id)
	s.mu.Lock()
	s.sessions[l.id] = l
	s.mu.Unlock()
	if load == "" {
		// The updates go out once the client knows the session: after
		// the answer to session/new is written.
		s.out.after(l.id, l.announce)
	}
	return l, nil
}

func (s *Server) session(id acp.SessionId) (*live, error) {
	s.mu.Lock()
	l, ok := s.sessions[string(id)]
	s.mu.Unlock()
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q on this connection (session/new or session/load first)", id)})
	}
	return l, nil
}

// Cancel implements acp.Agent: session/cancel is the Cancellable.
func (s *Server) Cancel(_ context.Context, p acp.CancelNotification) error {
	l, err := s.session(p.SessionId)
	if err != nil {
		return err
	}
	l.s.Loop.Stop("cancelled in the editor")
	return nil
}

// CloseSession implements acp.Agent.
func (s *Server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	l, err := s.session(p.SessionId)
	if err != nil {
		return acp.CloseSessionResponse{}, err
	}
	s.mu.Lock()
	delete(s.sessions, l.id)
	s.mu.Unlock()
	l.close()
	return acp.CloseSessionResponse{}, nil
}

// SetSessionMode implements acp.Agent.
func (s *Server) SetSessionMode(_ context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	l, err := s.session(p.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if l.s.SetMode == nil {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": "this session has no modes"})
	}
	// A persona changes between turns: a switch during one waits for it.
	select {
	case l.turn <- struct{}{}:
	case <-s.ctx.Done():
		return acp.SetSessionModeResponse{}, errClosed
	}
	defer func() { <-l.turn }()
	if err := l.s.SetMode(string(p.ModeId)); err != nil {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	l.mu.Lock()
	l.s.Mode = string(p.ModeId)
	l.mu.Unlock()
	return acp.SetSessionModeResponse{}, nil
}

// HandleExtensionMethod implements acp.ExtensionMethodHandler: _chat/steer.
func (s *Server) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != SteerMethod {
		return nil, acp.NewMethodNotFound(method)
	}
	var p struct {
		SessionID acp.SessionId `json:"sessionId"`
		Text      string        `json:"text"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Text == "" {
		return nil, acp.NewInvalidParams(map[string]any{"error": `want {"sessionId": …, "text": …} with some text`})
	}
	l, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if l.s.Loop.Steer(p.Text) != nil {
		return nil, acp.NewInvalidRequest(map[string]any{"error": "no turn is running in this session; send the text with session/prompt"})
	}
	return map[string]any{"queued": true}, nil
}

// The methods chat does not offer.

func (s *Server) sessionCapabilities() acp.SessionCapabilities {
	c := acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{}}
	if s.o.List != nil {
		c.List = &acp.SessionListCapabilities{}
	}
	return c
}

// listPage is how many sessions one session/list answer holds.
const listPage = 100

// ListSessions implements acp.Agent: the saved sessions (of the folder
// asked about), newest first, a page at a time; the cursor is an offset.
func (s *Server) ListSessions(_ context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	if s.o.List == nil {
		return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
	}
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	all, err := s.o.List(cwd)
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	from := 0
	if p.Cursor != nil {
		if n, err := strconv.Atoi(*p.Cursor); err == nil && n >= 0 && n <= len(all) {
			from = n
		}
	}
	resp := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, sv := range all[from:min(from+listPage, len(all))] {
		info := acp.SessionInfo{SessionId: acp.SessionId(sv.ID), Cwd: sv.Cwd, UpdatedAt: acp.Ptr(sv.Updated.UTC().Format(time.RFC3339))}
		if sv.Title != "" {
			info.Title = acp.Ptr(sv.Title)
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	if next := from + listPage; next < len(all) {
		resp.NextCursor = acp.Ptr(strconv.Itoa(next))
	}
	return resp, nil
}

// ResumeSession implements acp.Agent.
func (s *Server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

// SetSessionConfigOption implements acp.Agent.
func (s *Server) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

// live is an open session: what the wiring built, the updates going out,
// and the turn in progress.
type live struct {
	srv    *Server
	id     string
	cwd    string
	s      *Session
	out    *outbox
	events *events
	// turn holds one token while a prompt runs: prompts wait their turn
	// in the order they came, and never join one another.
	turn chan struct{}
	// known is closed once the editor knows the session (announce): a
	// server that asks while the session opens waits for it.
	known chan struct{}

	mu        sync.Mutex
	closeOnce sync.Once
}

func (l *live) modes() *acp.SessionModeState {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.s.Modes) == 0 {
		return nil
	}
	st := &acp.SessionModeState{CurrentModeId: acp.SessionModeId(l.s.Mode)}
	for _, m := range l.s.Modes {
		mode := acp.SessionMode{Id: acp.SessionModeId(m.ID), Name: m.Name}
		if m.Description != "" {
			mode.Description = acp.Ptr(m.Description)
		}
		st.AvailableModes = append(st.AvailableModes, mode)
	}
	return st
}

// announce starts the session's updates with its commands.
func (l *live) announce() {
	if len(l.s.Commands) > 0 {
		l.out.push(update{u: availableCommands(l.s.Commands)})
	}
	l.out.release()
	close(l.known)
}

func (l *live) close() {
	l.closeOnce.Do(func() {
		l.s.Loop.Stop("the editor closed the session")
		l.out.stop()
		// The stopped turn ends first (its last save, the placeholder
		// answers of its calls): the run closes its session after it, not
		// under it. Bounded: a turn that does not end must not hold the
		// editor's close.
		select {
		case l.turn <- struct{}{}:
			defer func() { <-l.turn }()
		case <-time.After(closeWait):
		}
		if l.s.Close != nil {
			l.s.Close()
		}
	})
}

var errClosed = errors.New("the session was closed")

// closeWait bounds how long closing a session waits for its turn to end.
const closeWait = 30 * time.Second

func mcpServers(in []acp.McpServer) []MCPServer {
	var out []MCPServer
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			out = append(out, MCPServer{Name: m.Http.Name, URL: m.Http.Url, Headers: headers(m.Http.Headers)})
		case m.Sse != nil:
			// Not advertised (mcpCapabilities.sse is false); streamable HTTP
			// servers usually answer on the same URL.
			out = append(out, MCPServer{Name: m.Sse.Name, URL: m.Sse.Url, Headers: headers(m.Sse.Headers)})
		}
	}
	return out
}

func headers(hs []acp.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

func availableCommands(cmds []Command) acp.SessionUpdate {
	var list []acp.AvailableCommand
	for _, c := range cmds {
		ac := acp.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	return acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: list}}
}

// readGate holds reads until open is closed.
type readGate struct {
	r    io.Reader
	open chan struct{}
}

func (g *readGate) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
