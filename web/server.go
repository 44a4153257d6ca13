package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
)

//go:embed assets
var assets embed.FS

// Options are a server's run and how it is reached.
type Options struct {
	Run *app.Run
	// Stream is the run's listener for pages (NewStream, on the run's
	// list before its first turn); Approvals asks through it.
	Stream    *Stream
	Approvals *Approvals
	// Own: the page drives the run (chat serve), which ends with it;
	// else it joins a run a REPL drives (/serve).
	Own bool
	// Listener is where it serves (its port is the one a request's Host
	// must name).
	Listener net.Listener
}

// Server is the web front end of one run.
type Server struct {
	o     Options
	ctx   context.Context
	creds *credentials
	port  string
	loop  *app.Loop // the run's turns, which the page steers
	http  *http.Server

	mu   sync.Mutex
	seen history // the history the pages were last given
}

// history is which session the run holds and its revision: what changes
// when the history changes other than by a turn's appends.
type history struct {
	s   *session.Session
	rev int
}

func (s *Server) current() history {
	sess := s.o.Run.Session()
	return history{sess, sess.Revision()}
}

// reset reloads the pages after the history changed here.
func (s *Server) reset() {
	s.o.Stream.Reset()
	s.mu.Lock()
	s.seen = s.current()
	s.mu.Unlock()
}

// editCheck is how often the pages' view of the history is compared with
// the run's: an edit made elsewhere (/undo, /new, /rewind in the terminal,
// a compaction) reloads them once no turn runs.
const editCheck = 300 * time.Millisecond

func (s *Server) followEdits() {
	tick := time.NewTicker(editCheck)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		changed := s.current() != s.seen
		s.mu.Unlock()
		if changed && !s.loop.Running() {
			s.reset()
		}
	}
}

// New prepares a server for o; Serve serves it.
func New(ctx context.Context, o Options) (*Server, error) {
	_, port, err := net.SplitHostPort(o.Listener.Addr().String())
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, ctx: ctx, creds: newCredentials(), port: port, loop: o.Run.Loop()}
	if o.Own {
		s.loop.SetContext(ctx)
		// A stopped or failed turn gives back what it never took, as
		// the REPL puts it back into the input.
		s.loop.OnUnsent(func(left []string) { o.Stream.Publish("unsent", left) })
	}
	s.loop.OnPending(func(p []app.Pending) { o.Stream.Publish("pending", p) })
	s.http = &http.Server{Handler: s.guard(s.routes()), ReadHeaderTimeout: 10 * time.Second}
	s.seen = s.current()
	go markdown() // the highlighter's first use is slow: not on a turn's
	return s, nil
}

// URL is a new sign-in address: it works once (each call makes another).
func (s *Server) URL() string {
	host := s.o.Listener.Addr().String()
	if ip, port, err := net.SplitHostPort(host); err == nil && net.ParseIP(ip).IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", port)
	}
	return "http://" + host + "/?token=" + s.creds.link()
}

// Serve serves until ctx ends, then waits for the page's turn to end.
func (s *Server) Serve() error {
	go s.followEdits()
	go func() {
		<-s.ctx.Done()
		s.o.Stream.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.http.Shutdown(sctx)
	}()
	err := s.http.Serve(s.o.Listener)
	if s.o.Own {
		s.loop.Stop("chat serve stopped")
		s.loop.Wait()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", files))
	mux.HandleFunc("GET /assets/code.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		_, _ = w.Write(codeCSS())
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page, _ := assets.ReadFile("assets/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	mux.Handle("GET /api/events", s.o.Stream)
	mux.HandleFunc("GET /api/state", s.state)
	mux.HandleFunc("GET /api/messages", s.earlier)
	mux.HandleFunc("GET /api/sessions", s.sessions)
	mux.HandleFunc("POST /api/sessions", s.openSession)
	mux.HandleFunc("GET /api/worktrees", s.worktrees)
	mux.HandleFunc("POST /api/send", s.send)
	mux.HandleFunc("POST /api/stop", func(w http.ResponseWriter, r *http.Request) {
		s.loop.Stop("stopped in the browser")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/pending", s.pending)
	mux.HandleFunc("POST /api/approval", s.approval)
	mux.HandleFunc("GET /api/turns", s.turns)
	mux.HandleFunc("GET /api/turns/{n}/diff", s.turnDiff)
	mux.HandleFunc("POST /api/rewind", s.rewind)
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	_ = enc.Encode(v)
}

// readJSON decodes a request's body into v, or answers 400 and false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("the request is larger than %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
			return false
		}
		http.Error(w, "the request is not the JSON expected: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// pageLimit is how many messages a page gets at first (older ones on
// request): a long session opens fast and the page stays small.
const pageLimit = 200

type stateView struct {
	Session struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"session"`
	Model     string         `json:"model"`
	Seq       uint64         `json:"seq"`
	Running   bool           `json:"running"`
	Messages  []messageView  `json:"messages"`
	Earlier   int            `json:"earlier"` // messages before these
	Pending   []app.Pending  `json:"pending"`
	Approvals []approvalView `json:"approvals"`
	Context   contextView    `json:"context"`
}

type contextView struct {
	System, Project, Tools, Summary, History, Window, Used int
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	a := s.o.Run
	seq, n, running := s.o.Stream.Snapshot()
	msgs := a.Session().Messages()
	n = min(n, len(msgs))
	from := max(0, n-pageLimit)
	v := stateView{Model: a.Model(), Seq: seq - 1, Running: running || s.loop.Running(),
		Messages: viewOfMessages(msgs[from:n]), Earlier: from, Pending: s.loop.Pending(), Approvals: s.o.Approvals.Pending()}
	v.Session.ID = s.o.Run.SessionID()
	if v.Pending == nil {
		v.Pending = []app.Pending{}
	}
	v.Session.Title = listener.String(s.o.Run.Title())
	v.Context = s.context()
	writeJSON(w, v)
}

func (s *Server) context() contextView {
	a := s.o.Run
	p := a.ContextReport()
	return contextView{System: p.System - p.Project, Project: p.Project, Tools: p.Tools, Summary: p.Summary, History: p.History, Window: p.Window, Used: a.ContextSize()}
}

// earlier is the messages before index "before", a page at a time.
func (s *Server) earlier(w http.ResponseWriter, r *http.Request) {
	before, err := strconv.Atoi(r.URL.Query().Get("before"))
	if err != nil || before < 0 {
		http.Error(w, "before is a message index", http.StatusBadRequest)
		return
	}
	msgs := s.o.Run.Session().Messages()
	before = min(before, len(msgs))
	from := max(0, before-pageLimit)
	writeJSON(w, map[string]any{"messages": viewOfMessages(msgs[from:before]), "earlier": from})
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Text  string `json:"text"`
		Queue bool   `json:"queue"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	// A prompt file's command sends its prompt, as typed in the terminal
	// (the project's, once trusted there or with chat commands trust).
	if c, args, ok := s.o.Run.PromptCommand(req.Text, func(name string) bool { return name == "compact" }); ok {
		text, err := s.o.Run.ExpandPromptFile(c, args)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Text = text
	}
	done(w, s.loop.Send(req.Text, req.Queue), http.StatusBadRequest)
}

// done answers 204 No Content, or err with status.
func done(w http.ResponseWriter, err error, status int) {
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) pending(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     uint64 `json:"id"`
		Text   string `json:"text"`
		Remove bool   `json:"remove"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if req.Remove {
		done(w, s.loop.Remove(req.ID), http.StatusConflict)
		return
	}
	done(w, s.loop.Edit(req.ID, req.Text), http.StatusConflict)
}

func (s *Server) approval(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     string `json:"id"`
		Answer string `json:"answer"`
		Reason string `json:"reason"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	done(w, s.o.Approvals.Answer(req.ID, req.Answer, req.Reason, "browser"), http.StatusConflict)
}

type sessionView struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	Current  bool      `json:"current"`
}

// listed is the working directory's sessions, newest first.
func (s *Server) listed() ([]sessionView, error) {
	all, err := s.o.Run.Sessions().List()
	out := []sessionView{}
	for _, i := range all {
		if i.Dir != s.o.Run.Workdir() {
			continue
		}
		out = append(out, sessionView{ID: i.ID, Title: listener.String(i.Title), Updated: i.Updated, Messages: i.Messages, Current: i.ID == s.o.Run.SessionID()})
	}
	return out, err
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.listed()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, list)
}

// worktrees lists the repository's worktrees (chat --worktree), each
// with its latest session.
func (s *Server) worktrees(w http.ResponseWriter, r *http.Request) {
	rows, err := s.o.Run.WorktreeList(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type view struct {
		Name    string   `json:"name"`
		Branch  string   `json:"branch"`
		Dir     string   `json:"dir"`
		Changed []string `json:"changed"`
		Ahead   int      `json:"ahead"`
		State   string   `json:"state"`
		Title   string   `json:"title,omitempty"`
		Current bool     `json:"current"`
	}
	out := []view{}
	for _, row := range rows {
		v := view{Name: row.Name, Branch: row.Branch, Dir: row.Dir, Changed: row.Changed, Ahead: row.Ahead, State: row.State,
			Current: row.Dir == s.o.Run.Workdir()}
		if row.Session != nil {
			v.Title = row.Session.Title
		}
		out = append(out, v)
	}
	writeJSON(w, out)
}

// openSession switches the run to a listed session ("id") or a new one.
func (s *Server) openSession(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID  string `json:"id"`
		New bool   `json:"new"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if s.loop.Running() {
		http.Error(w, "a turn is running: stop it or wait for it", http.StatusConflict)
		return
	}
	host := s.o.Run.Sessions()
	a := s.o.Run
	switch {
	case req.New:
		host.Started(a.NewSession())
	default:
		list, err := s.listed()
		if err != nil || !slices.ContainsFunc(list, func(v sessionView) bool { return v.ID == req.ID }) {
			http.Error(w, "no session of this directory has that id", http.StatusNotFound)
			return
		}
		sess, _, err := host.Open(req.ID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		a.SetSession(sess)
	}
	s.reset()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) turns(w http.ResponseWriter, r *http.Request) {
	rows, err := s.o.Run.Timeline()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, map[string]any{"turns": rows, "context": s.context(), "title": listener.String(s.o.Run.Title())})
}
