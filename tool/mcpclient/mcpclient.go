package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/tool"
)

// ConnectName is the tool the model connects a server with.
const ConnectName = "mcp_connect"

// connectTimeout bounds starting a server and listing its tools.
const connectTimeout = 30 * time.Second

// defaultCallTimeout bounds one tool call when the config says nothing.
const defaultCallTimeout = time.Minute

// maxOutput bounds what one call returns to the model, as the built-in
// tools do.
const maxOutput = 64 << 10

// State is what /mcp shows of a server.
type State struct {
	Name, Description, Transport string
	Status                       string // "not connected", "connected", "failed: …"
	Tools                        []string
	Prompts                      []Prompt
	Resources                    []Resource
}

// Servers are the configured MCP servers of a run.
type Servers struct {
	conf    map[string]config.MCPConfig
	getenv  func(string) string
	workdir string
	client  *mcp.Client

	mu     sync.Mutex
	conns  map[string]*conn
	failed map[string]error
	closed bool
	// dialing holds one token per server while it connects: a second
	// caller waits for the first (or its own context), others go on.
	dialing map[string]chan struct{}
	// opening are the connections made and not yet listed (in conns
	// once they are): a server may ask its question while it starts.
	opening map[*mcp.ClientSession]named
	// recorded is closed (and replaced) whenever a connection is recorded
	// in opening or conns: a question that came first waits on it.
	recorded chan struct{}
	// stopping ends every dial in flight when Close runs.
	stopping context.Context
	stop     context.CancelFunc
	// inProcess, in tests, replaces the configured transport.
	inProcess func(name string) mcp.Transport

	elicitor Elicitor // nil: a form is declined
	root     string   // the root the servers are told
	logins   *Logins  // the HTTP servers' OAuth tokens (nil: none kept)
}

// announceLocked wakes what waits for a connection to be recorded.
func (s *Servers) announceLocked() {
	close(s.recorded)
	s.recorded = make(chan struct{})
}

type named struct {
	name string
	c    *conn
}

type conn struct {
	session   *mcp.ClientSession
	tools     []tool.Tool
	prompts   []Prompt
	resources []Resource
	// calls are the contexts of the tool calls in flight: an
	// elicitation ends when the calls that may have asked it have.
	mu    sync.Mutex
	calls map[*context.Context]struct{}
}

// New returns the servers of conf; nothing is started yet. getenv expands
// ${VAR} in env and header values; workdir is where commands run.
func New(conf map[string]config.MCPConfig, getenv func(string) string, workdir string) *Servers {
	stopping, stop := context.WithCancel(context.Background())
	s := &Servers{
		stopping: stopping, stop: stop,
		conf: conf, getenv: getenv, workdir: workdir,
		conns: map[string]*conn{}, failed: map[string]error{}, dialing: map[string]chan struct{}{},
		opening: map[*mcp.ClientSession]named{}, recorded: make(chan struct{}),
	}
	s.client = mcp.NewClient(&mcp.Implementation{Name: "chat", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: s.elicit,
		Capabilities: &mcp.ClientCapabilities{
			//lint:ignore SA1019 roots are deprecated from 2026-07-28 but live for a year, and servers (the reference one too) ask for them
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
		PromptListChangedHandler:   func(_ context.Context, r *mcp.PromptListChangedRequest) { s.relistPrompts(r.Session) },
		ResourceListChangedHandler: func(_ context.Context, r *mcp.ResourceListChangedRequest) { s.relistResources(r.Session) },
	})
	s.SetRoot(workdir)
	return s
}

// SetElicitor sets who answers the servers' questions (nil: declined).
func (s *Servers) SetElicitor(e Elicitor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elicitor = e
}

// SetRoot tells the servers the folder they work on (the working
// directory): those connected hear that it changed.
func (s *Servers) SetRoot(dir string) {
	if dir == "" {
		return
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
	s.mu.Lock()
	old := s.root
	s.root = u
	s.mu.Unlock()
	if old == u {
		return
	}
	//lint:ignore SA1019 see RootsV2 in New
	s.client.AddRoots(&mcp.Root{URI: u, Name: filepath.Base(dir)})
	if old != "" {
		//lint:ignore SA1019 see RootsV2 in New
		s.client.RemoveRoots(old)
	}
}

// SetLogins sets the folder of the HTTP servers' OAuth tokens.
func (s *Servers) SetLogins(dir string) { s.logins = &Logins{Dir: dir} }

// LoginState says whether chat holds a login for the server ("-" for a
// server that does not log in).
func (s *Servers) LoginState(name string) string {
	if s.logins == nil {
		return "-"
	}
	return s.logins.State(name, s.conf[name])
}

// httpTransport is the streamable HTTP transport of a configured server:
// its headers sent to its origin only, no redirect elsewhere, the OAuth
// handler if any.
func (s *Servers) httpTransport(cfg config.MCPConfig, handler auth.OAuthHandler) *mcp.StreamableClientTransport {
	headers := map[string]string{}
	for k, v := range cfg.Headers {
		headers[k] = os.Expand(v, s.getenv)
	}
	u, _ := url.Parse(cfg.URL)
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, MaxRetries: -1, OAuthHandler: handler,
		HTTPClient: &http.Client{Transport: headerTransport{headers: headers, origin: origin(u)}, CheckRedirect: sameOrigin(u)}}
}

// Names are the configured servers, sorted.
func (s *Servers) Names() []string { return slices.Sorted(maps.Keys(s.conf)) }

// Eager are the servers to connect at start.
func (s *Servers) Eager() []string {
	var out []string
	for _, n := range s.Names() {
		if s.conf[n].Eager {
			out = append(out, n)
		}
	}
	return out
}

// Advertisement is the <available_mcps> block for the system prompt.
func (s *Servers) Advertisement() string {
	var b strings.Builder
	b.WriteString("<available_mcps>\nMCP servers you can connect with mcp_connect; their tools are then yours, named SERVER__tool:")
	for _, n := range s.Names() {
		desc := s.conf[n].Description
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&b, "\n- %s: %s", n, strings.Join(strings.Fields(desc), " "))
	}
	b.WriteString("\n</available_mcps>")
	return b.String()
}

// Connect starts (or reuses) the named server and returns its tools.
func (s *Servers) Connect(ctx context.Context, name string) ([]tool.Tool, error) {
	cfg, ok := s.conf[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server named %q; there are: %s", name, strings.Join(s.Names(), ", "))
	}
	s.mu.Lock()
	turn, ok := s.dialing[name]
	if !ok {
		turn = make(chan struct{}, 1)
		s.dialing[name] = turn
	}
	s.mu.Unlock()
	select {
	case turn <- struct{}{}:
		defer func() { <-turn }()
	case <-ctx.Done():
		return nil, fmt.Errorf("MCP server %s: %w", name, context.Cause(ctx))
	}
	s.mu.Lock()
	c, closed := s.conns[name], s.closed
	s.mu.Unlock()
	if closed {
		return nil, errors.New("chat is shutting down")
	}
	if c != nil {
		return c.tools, nil
	}
	c, err := s.dial(ctx, name, cfg)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed[name] = err
		return nil, fmt.Errorf("MCP server %s: %w", name, err)
	}
	if s.closed { // Close ran while we dialed: do not leave the process behind
		_ = c.session.Close()
		return nil, errors.New("chat is shutting down")
	}
	delete(s.failed, name)
	s.conns[name] = c
	s.announceLocked()
	return c.tools, nil
}

func (s *Servers) dial(ctx context.Context, name string, cfg config.MCPConfig) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	defer context.AfterFunc(s.stopping, cancel)() // Close ends the dial
	var transport mcp.Transport
	stderrTail := &tail{max: 2 << 10}
	switch {
	case s.inProcess != nil:
		transport = s.inProcess(name)
	case cfg.Command != "":
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = s.workdir
		// What the MCP SDKs give a server (no API key, no token), plus
		// what its entry configures.
		cmd.Env = nil
		for _, k := range []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"} {
			if v := s.getenv(k); v != "" {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		for k, v := range cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+os.Expand(v, s.getenv))
		}
		// A server's log is not the person's screen, but its last lines
		// say why it failed to start.
		cmd.Stderr = stderrTail
		detach(cmd)
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	default:
		if _, err := url.Parse(cfg.URL); err != nil {
			return nil, err
		}
		var handler auth.OAuthHandler
		if s.logins != nil {
			handler = &stored{name: name, url: cfg.URL, logins: *s.logins, client: &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirects}}
		}
		transport = s.httpTransport(cfg, handler)
	}
	session, err := s.client.Connect(ctx, transport, nil)
	if err != nil {
		if said := stderrTail.lastLines(5); said != "" {
			return nil, fmt.Errorf("cannot start or reach it: %w; it said:\n%s", err, said)
		}
		return nil, fmt.Errorf("cannot start or reach it: %w", err)
	}
	c := &conn{session: session, calls: map[*context.Context]struct{}{}}
	s.mu.Lock()
	s.opening[session] = named{name, c}
	s.announceLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.opening, session)
		s.mu.Unlock()
	}()
	if c.prompts, err = listPrompts(ctx, name, session); err != nil {
		_ = session.Close()
		return nil, err
	}
	if c.resources, err = listResources(ctx, name, session); err != nil {
		_ = session.Close()
		return nil, err
	}
	allow := map[string]bool{}
	for _, a := range cfg.Allow {
		allow[a] = true
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultCallTimeout
	}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return nil, fmt.Errorf("listing its tools: %w", err)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || !isObjectSchema(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		c.tools = append(c.tools, &serverTool{name: uniqueName(c.tools, wireName(name, t.Name)), server: name, remote: t.Name,
			description: t.Description, schema: schema, servers: s, allowed: allow[t.Name], timeout: timeout})
	}
	go s.watch(name, c)
	return c, nil
}

// watch forgets a connection that ended (the server exited, or the SDK
// closed it on a message it would not read): the next use reconnects.
func (s *Servers) watch(name string, c *conn) {
	_ = c.session.Wait()
	s.forget(name, c)
}

func (s *Servers) forget(name string, c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[name] == c && !s.closed {
		delete(s.conns, name)
		s.failed[name] = errors.New("the connection ended; chat connects again when it is next used")
	}
}

// reading asks a server something that changes nothing (a prompt, a
// resource): on a connection that turns out closed it connects again
// and asks once more.
func reading[T any](ctx context.Context, s *Servers, name string, ask func(*mcp.ClientSession) (T, error)) (T, error) {
	c, err := s.live(ctx, name)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := ask(c.session)
	if errors.Is(err, mcp.ErrConnectionClosed) {
		s.forget(name, c)
		if c, err = s.live(ctx, name); err != nil {
			return v, err
		}
		v, err = ask(c.session)
	}
	return v, err
}

// live is the server's connection, made again if it ended.
func (s *Servers) live(ctx context.Context, name string) (*conn, error) {
	if _, err := s.Connect(ctx, name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[name]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("the MCP server %s is not connected", name)
}

// uniqueName is name, or name with a suffix when an earlier tool of the
// server already has it (two long names cut to the same 64 bytes): no
// tool silently replaces another.
func uniqueName(have []tool.Tool, name string) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(have, func(t tool.Tool) bool { return t.Name() == n })
	}
	for i := 2; taken(name); i++ {
		suffix := fmt.Sprintf("_%d", i)
		name = name[:min(len(name), 64-len(suffix))] + suffix
	}
	return name
}

// tail keeps the last max bytes written to it (a server's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// lastLines is the last n lines written, each cut to a readable width.
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	for i, l := range lines {
		lines[i] = "  " + clip.String(strings.TrimSpace(l), 200)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " ")
}

func isObjectSchema(b []byte) bool {
	var v struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(b, &v) == nil && v.Type == "object"
}

// headerTransport adds the configured headers to every request to the
// configured origin, and to no other: they often carry a token.
type headerTransport struct {
	headers map[string]string
	origin  string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if origin(r.URL) == h.origin {
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// sameOrigin refuses a redirect away from the configured server.
func sameOrigin(u *url.URL) func(*http.Request, []*http.Request) error {
	return func(r *http.Request, via []*http.Request) error {
		if origin(r.URL) != origin(u) {
			return fmt.Errorf("the MCP server redirected to %s, another origin: not followed", origin(r.URL))
		}
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		return nil
	}
}

// States describes every server, for /mcp.
func (s *Servers) States() []State {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []State
	for _, n := range s.Names() {
		cfg := s.conf[n]
		st := State{Name: n, Description: cfg.Description, Status: "not connected", Transport: cfg.Transport()}
		if err := s.failed[n]; err != nil {
			st.Status = "failed: " + err.Error()
		}
		if c := s.conns[n]; c != nil {
			st.Status = "connected"
			for _, t := range c.tools {
				st.Tools = append(st.Tools, t.Name())
			}
			st.Prompts, st.Resources = c.prompts, c.resources
		}
		out = append(out, st)
	}
	return out
}

// Close stops every server (a command's process: stdin closed, then
// SIGTERM, then killed) and refuses new connections.
func (s *Servers) Close() error {
	s.stop()
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = map[string]*conn{}
	s.mu.Unlock()
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for name, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.session.Close(); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
				emu.Lock()
				errs = append(errs, fmt.Errorf("MCP server %s: %w", name, err))
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
