package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/pricing"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tui"
)

// sessionHost opens, saves and switches the session of a run. With
// --no-save it keeps everything in memory.
type sessionHost struct {
	d      deps
	store  session.Store
	cwd    string
	model  string
	noSave bool

	ifBusy string // --if-busy: "new" or "exit"
	// attached, when set, hears of each session the run moves to (its
	// checkpoints follow it).
	attached func(s *session.Session, id string)
	// cleared, when set, hears of /new (SessionStart hooks run again).
	cleared func()

	mu       sync.Mutex
	writer   *session.Writer
	unlock   func()          // releases the writer's session for other processes
	agentDef json.RawMessage // snapshot for the header of new sessions
}

func newSessionHost(d deps, o *rootOptions, model string) (*sessionHost, error) {
	cwd, err := d.workdir()
	if err != nil {
		return nil, err
	}
	return &sessionHost{d: d, store: session.Store{Dir: session.DefaultDir(d.getenv)}, cwd: cwd, model: model, noSave: o.noSave, ifBusy: o.ifBusy}, nil
}

// open returns the run's session: the one --continue or --resume names
// (with the agent definition it was made with), else a new one, which
// begin saves once the agent is set up.
func (h *sessionHost) open(o *rootOptions) (*session.Session, json.RawMessage, error) {
	var info session.Info
	var err error
	switch {
	case o.resume != "":
		info, err = h.store.Find(o.resume)
	case o.cont:
		info, err = h.store.Latest(h.cwd)
		if errors.Is(err, session.ErrNoSession) {
			// Nothing to continue here: say so, and start one.
			fmt.Fprintf(h.d.stderr, "note: no session was started in %s yet; starting a new one\n", h.cwd)
			return session.New(), nil, nil
		}
	default:
		return session.New(), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s, l, err := h.load(info)
	var busy *session.BusyError
	if errors.As(err, &busy) && h.ifBusy != "exit" {
		// Never two writers in one session: the other keeps it.
		fmt.Fprintf(h.d.stderr, "note: %v; starting a new session (--if-busy exit stops instead)\n", err)
		return session.New(), nil, nil
	}
	return s, l.Header.Agent, err
}

// begin starts saving a new session, its header carrying the agent.
func (h *sessionHost) begin(s *session.Session, agentDef json.RawMessage) {
	h.mu.Lock()
	started := h.writer != nil
	h.agentDef = agentDef
	h.mu.Unlock()
	if !started {
		h.attachNew(s)
	}
}

func (h *sessionHost) load(info session.Info) (*session.Session, session.Loaded, error) {
	var unlock func()
	h.mu.Lock()
	held := h.writer != nil && h.writer.ID() == info.ID // this run's own session: already locked
	h.mu.Unlock()
	if !h.noSave && !held {
		var err error
		if unlock, err = h.store.Lock(info.ID); err != nil {
			return nil, session.Loaded{}, err
		}
	}
	s, l, err := h.loadLocked(info)
	if err != nil {
		if unlock != nil {
			unlock()
		}
		return nil, l, err
	}
	if unlock != nil {
		h.holdLock(unlock)
	}
	return s, l, nil
}

// loadLocked loads a session this process holds the lock of.
func (h *sessionHost) loadLocked(info session.Info) (*session.Session, session.Loaded, error) {
	l, err := session.Load(info.Path)
	if err != nil {
		return nil, l, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintln(h.d.stderr, "warning:", w)
	}
	s := session.New(l.Messages...)
	s.KeepRewound(l.Rewound)
	s.Prune()
	// A question left without an answer (its turn failed, or chat was
	// killed) is kept, but never sent again on its own. Said once: the
	// mark is saved.
	for _, m := range s.NoteUnanswered() {
		fmt.Fprintf(h.d.stderr, "note: an earlier message got no answer and is not sent again: %q\n", session.Title(m.Content))
	}
	if !h.noSave {
		w, backup, err := h.store.Continue(l)
		if err != nil {
			return nil, l, err
		}
		if backup != "" {
			fmt.Fprintf(h.d.stderr, "warning: the session file had lines chat cannot read; the original is kept at %s\n", backup)
		}
		h.setWriter(w, s)
		h.save(s) // the marks above, so they are said once
	}
	return s, l, nil
}

func (h *sessionHost) attachNew(s *session.Session) {
	if h.noSave {
		if h.attached != nil {
			h.attached(s, fmt.Sprintf("unsaved-%d-%s", os.Getpid(), session.NewID()))
		}
		return
	}
	h.mu.Lock()
	def := h.agentDef
	h.mu.Unlock()
	w, err := h.store.Begin(session.Header{Dir: h.cwd, Model: h.model, Agent: def})
	if err != nil {
		fmt.Fprintf(h.d.stderr, "warning: this session will not be saved: %v\n", err)
		return
	}
	unlock, err := h.store.Lock(w.ID())
	if err != nil {
		fmt.Fprintf(h.d.stderr, "warning: %v\n", err)
		unlock = func() {}
	}
	h.holdLock(unlock)
	h.setWriter(w, s)
	// The header and what the session holds (the system prompt) are
	// written while the first request goes out.
	w.SyncBehind(s)
}

// holdLock keeps the lock of the session now written, releasing the one
// held before.
func (h *sessionHost) holdLock(unlock func()) {
	h.mu.Lock()
	old := h.unlock
	h.unlock = unlock
	h.mu.Unlock()
	if old != nil {
		old()
	}
}

func (h *sessionHost) setWriter(w *session.Writer, s *session.Session) {
	h.mu.Lock()
	old := h.writer
	h.writer = w
	h.mu.Unlock()
	if old != nil {
		old.Close()
	}
	w.Attach(s)
	if h.attached != nil {
		h.attached(s, w.ID())
	}
}

// save writes what the last operation changed (healing, mutators).
func (h *sessionHost) save(s *session.Session) {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil {
		return
	}
	if err := w.Sync(s); err != nil {
		fmt.Fprintf(h.d.stderr, "warning: saving the session failed: %v\n", err)
	}
}

// id is the current session's id ("" when not saved).
func (h *sessionHost) id() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.writer == nil {
		return ""
	}
	return h.writer.ID()
}

// transcript names the current session and its file ("" when not saved),
// for hooks.
func (h *sessionHost) transcript() (id, path string) {
	h.mu.Lock()
	w := h.writer
	h.mu.Unlock()
	if w == nil {
		return "", ""
	}
	w.Settle() // a hook may read it
	return w.ID(), w.Path()
}

func (h *sessionHost) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.writer != nil {
		if err := h.writer.Err(); err != nil {
			fmt.Fprintf(h.d.stderr, "warning: the session file may be incomplete: %v\n", err)
		}
		h.writer.Close()
	}
	if h.unlock != nil {
		h.unlock()
		h.unlock = nil
	}
}

// The tui.SessionHost methods.

func (h *sessionHost) Changed(s *session.Session) { h.save(s) }
func (h *sessionHost) Started(s *session.Session) {
	h.attachNew(s)
	if h.cleared != nil {
		h.cleared()
	}
}
func (h *sessionHost) List() ([]session.Info, error) {
	return h.store.List()
}
func (h *sessionHost) Open(prefix string) (*session.Session, error) {
	info, err := h.store.Find(prefix)
	if err != nil {
		return nil, err
	}
	s, _, err := h.load(info)
	return s, err
}

// chat sessions list|show|export|rm

func newSessionsCmd(d deps, o *rootOptions) *cobra.Command {
	store := func() session.Store { return session.Store{Dir: session.DefaultDir(d.getenv)} }
	cmd := &cobra.Command{Use: "sessions", Short: "List, show, export or remove saved sessions"}
	var asJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List saved sessions, newest first", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			all, err := store().List()
			if err != nil {
				return err
			}
			// Priced with today's config and endpoint, at the model each
			// session started with.
			cfg, _ := loadConfigFile(d, o, config.Flags{})
			type listed struct {
				session.Info
				Cost *float64 `json:"cost_usd,omitempty"`
			}
			rows := make([]listed, len(all))
			for i, s := range all {
				rows[i].Info = s
				if p, ok := modelPrice(cfg, cmp.Or(s.Model, cfg.Model)); ok && s.Usage.Total > 0 {
					cost := p.Cost(s.Usage)
					rows[i].Cost = &cost
				}
			}
			if asJSON {
				enc := json.NewEncoder(d.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(all) == 0 {
				fmt.Fprintln(d.stdout, "no saved sessions yet")
				return nil
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUPDATED\tMSGS\tTOKENS\tCOST\tDIRECTORY\tTITLE")
			for _, s := range rows {
				cost := "-"
				if s.Cost != nil {
					cost = pricing.Format(*s.Cost)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", session.ShortID(s.ID), tui.Ago(time.Since(s.Updated)), s.Messages, s.Usage.Total, cost, s.Dir, s.Title)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	show := &cobra.Command{
		Use: "show ID", Short: "Print a session's transcript", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			l, err := loadByPrefix(store(), args[0])
			if err != nil {
				return err
			}
			writeTranscript(d.stdout, session.WithRewound(l.Messages, l.Rewound))
			return nil
		},
	}
	var format string
	export := &cobra.Command{
		Use: "export ID", Short: "Export a session as Markdown or JSON", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			l, err := loadByPrefix(store(), args[0])
			if err != nil {
				return err
			}
			switch format {
			case "md", "markdown":
				writeMarkdown(d.stdout, l)
			case "json":
				enc := json.NewEncoder(d.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Header   session.Header    `json:"header"`
					Messages []session.Message `json:"messages"`
				}{l.Header, l.Messages})
			default:
				return fmt.Errorf("--format is md or json, not %q", format)
			}
			return nil
		},
	}
	export.Flags().StringVar(&format, "format", "md", "md or json")
	rm := &cobra.Command{
		Use: "rm ID", Short: "Remove a saved session", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			info, err := store().Find(args[0])
			if err != nil {
				return err
			}
			if err := store().Remove(info.ID); err != nil {
				return err
			}
			removeCheckpoints(d.getenv, info.ID)
			fmt.Fprintf(d.stdout, "removed %s (%s) and its checkpoints\n", info.ID, info.Title)
			return nil
		},
	}
	cmd.AddCommand(list, show, export, rm)
	return cmd
}

func loadByPrefix(st session.Store, prefix string) (session.Loaded, error) {
	info, err := st.Find(prefix)
	if err != nil {
		return session.Loaded{}, err
	}
	return session.Load(info.Path)
}

// writeTranscript prints a session as plain text, control bytes inert.
func writeTranscript(w io.Writer, msgs []session.Message) {
	for _, m := range msgs {
		if m.Rewound && m.Role == session.RoleUser {
			fmt.Fprint(w, "[rewound: not sent again]\n")
		}
		switch m.Role {
		case session.RoleSystem:
			fmt.Fprintf(w, "[system] %s\n\n", listener.VisibleString(m.Content))
		case session.RoleUser:
			fmt.Fprintf(w, "› %s\n", listener.VisibleString(m.Content))
			for _, f := range m.Files {
				fmt.Fprintf(w, "  [attached: %s]\n", listener.VisibleString(attachmentName(f)))
			}
			fmt.Fprintln(w)
		case session.RoleAssistant:
			if m.Content != "" {
				label := ""
				if m.Synthesized {
					label = "(synthesized) "
				}
				if m.Interrupted {
					label = "(interrupted) "
				}
				fmt.Fprintf(w, "%s%s\n\n", label, listener.VisibleString(m.Content))
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "→ %s %s\n", c.Name, listener.VisibleString(c.Arguments))
			}
		case session.RoleTool:
			if m.IsError() {
				fmt.Fprintf(w, "  ✗ %s\n\n", firstLineOf(listener.VisibleString(m.Content)))
			} else {
				fmt.Fprintf(w, "  ✓ %d bytes\n\n", len(m.Content))
			}
		case session.RoleSummary:
			fmt.Fprintf(w, "⇣ [compacted: %s]\n%s\n\n", compactionNote(m), listener.VisibleString(m.Content))
		}
	}
}

// attachmentName names an attached file: its name, type and size.
func attachmentName(f session.FilePart) string {
	name := f.Filename
	if name == "" {
		name = "(unnamed)"
	}
	if f.URL != "" && len(f.Data) == 0 {
		return fmt.Sprintf("%s (%s, %s)", name, f.MediaType, f.URL)
	}
	return fmt.Sprintf("%s (%s, %d bytes)", name, f.MediaType, len(f.Data))
}

func writeMarkdown(w io.Writer, l session.Loaded) {
	fmt.Fprintf(w, "# Session %s\n\n_%s · %s_\n\n", l.Header.ID, l.Header.Created.Format(time.RFC3339), l.Header.Dir)
	for _, m := range session.WithRewound(l.Messages, l.Rewound) {
		switch m.Role {
		case session.RoleSystem:
			fmt.Fprintf(w, "## System\n\n%s\n\n", m.Content)
		case session.RoleUser:
			fmt.Fprintf(w, "## User\n\n%s\n\n", m.Content)
			for _, f := range m.Files {
				fmt.Fprintf(w, "_attached: %s_\n\n", attachmentName(f))
			}
		case session.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(w, "## Assistant\n\n%s\n\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(w, "**Tool call** `%s`\n\n```json\n%s\n```\n\n", c.Name, c.Arguments)
			}
		case session.RoleTool:
			fmt.Fprintf(w, "**Tool result** `%s`\n\n```\n%s\n```\n\n", m.Name, strings.TrimRight(m.Content, "\n"))
		case session.RoleSummary:
			fmt.Fprintf(w, "## Compacted\n\n_%s_\n\n%s\n\n", compactionNote(m), m.Content)
		}
	}
}

// compactionNote says what a summary record stands for: from here on, the
// model was sent the summary instead of what precedes it.
func compactionNote(m session.Message) string {
	c := session.Compaction{}
	if m.Compaction != nil {
		c = *m.Compaction
	}
	note := fmt.Sprintf("the %d messages above were sent as this summary from here on (~%d → ~%d tokens)", c.Messages, c.Before, c.After)
	switch {
	case c.Dropped:
		note = fmt.Sprintf("the %d messages above were left out of what is sent from here on, unsummarized: no summary fitted (~%d → ~%d tokens)", c.Messages, c.Before, c.After)
	case c.Cut:
		note += "; the summary was cut to fit"
	}
	if c.Instructions != "" {
		note += "; asked to: " + listener.VisibleString(c.Instructions)
	}
	return note
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
