package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tui"
)

// checkpointDir is where a session's checkpoints live.
func checkpointDir(getenv func(string) string, sessionID string) string {
	return xdg.State.Chat(getenv, "checkpoints", sessionID)
}

// checkpointStore is the store of a session, bounded as the config says.
func checkpointStore(d deps, cfg config.Config, sessionID string) *checkpoint.Store {
	return &checkpoint.Store{Dir: checkpointDir(d.getenv, sessionID),
		MaxTotal: int64(cfg.Checkpoints.MaxSizeMB) << 20, MaxFileSize: int64(cfg.Checkpoints.MaxFileMB) << 20}
}

// changesFiles are the tools whose calls may change files: a checkpoint
// is taken before each (an MCP server's tools too, NAME__tool).
func changesFiles(name string) bool {
	switch name {
	case "write_file", "edit_file", "run_shell", "agent":
		return true
	}
	return strings.Contains(name, "__")
}

// checkpointer takes the run's checkpoints: before each call that may
// change files (once it is approved) and when a turn that made one ends.
// A turn is the stretch after a question of the person's, named by its id.
type checkpointer struct {
	d   deps
	cfg config.Config
	wd  string

	mu      sync.Mutex
	sess    *session.Session
	store   *checkpoint.Store
	pending string // the turn that took a checkpoint and still needs its "after"
	failed  bool   // said once that checkpoints failed
	unsaved bool   // the session is not saved (--no-save): its checkpoints go with the run
	// hold keeps notes for /rewind instead of writing them to stderr
	// (the REPL draws on the terminal stderr shares).
	hold  bool
	notes []string
}

// say tells the person something about checkpoints; c.mu is held.
func (c *checkpointer) say(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if c.hold {
		c.notes = append(c.notes, text)
		return
	}
	fmt.Fprintln(c.d.stderr, text)
}

// takeNotes returns the notes held for /rewind, and forgets them.
func (c *checkpointer) takeNotes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.notes
	c.notes = nil
	return n
}

// newCheckpointer follows the sessions of host (nil when the config turns
// checkpoints off).
func newCheckpointer(d deps, cfg config.Config, host *sessionHost) (*checkpointer, error) {
	if cfg.Checkpoints.Off {
		return nil, nil
	}
	wd, err := d.workdir()
	if err != nil {
		return nil, err
	}
	c := &checkpointer{d: d, cfg: cfg, wd: wd}
	host.attached = func(s *session.Session, id string) {
		c.attach(s, checkpointStore(d, cfg, id), strings.HasPrefix(id, "unsaved-"))
	}
	return c, nil
}

// close removes the checkpoints of an unsaved session.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store != nil && c.unsaved {
		_ = c.store.Remove()
	}
}

// attach follows the session now in use (a new one, /resume).
func (c *checkpointer) attach(s *session.Session, store *checkpoint.Store, unsaved bool) {
	c.mu.Lock()
	if c.store != nil && c.unsaved {
		_ = c.store.Remove()
	}
	c.sess, c.store, c.pending, c.unsaved = s, store, "", unsaved
	c.mu.Unlock()
	s.OnStart(func(call session.ToolCall) {
		if changesFiles(call.Name) {
			c.take(s, "before "+call.Name)
		}
	})
}

// take records a checkpoint of the turn s is in.
func (c *checkpointer) take(s *session.Session, label string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != c.sess || c.store == nil {
		return
	}
	q, ok := s.LastQuestion()
	if !ok {
		return
	}
	_, note, err := c.store.Take(c.wd, q.ID, label)
	switch {
	case errors.Is(err, checkpoint.ErrTooBig):
		// Said once, and not tried again at every call of this run.
		c.store = nil
		c.say("warning: %v; this run takes no checkpoints, so rewind cannot undo its changes", err)
	case err != nil && !c.failed:
		c.failed = true
		c.say("warning: no checkpoint could be taken (%v); rewind cannot undo these changes", err)
	case note != "":
		c.say("note: %s", note)
	}
	if err == nil && label != "after" {
		c.pending = q.ID
	}
}

// OnEvent takes the "after" checkpoint when a turn of the main agent that
// changed files ends, so what the person does next is theirs.
func (c *checkpointer) OnEvent(e listener.Event) {
	done, ok := e.(listener.TurnDone)
	if !ok || done.Agent != "" {
		return
	}
	c.mu.Lock()
	s, pending := c.sess, c.pending
	c.pending = ""
	c.mu.Unlock()
	if pending != "" {
		c.take(s, "after")
	}
}

// turnRow is one question of a session and what its turn did to files.
type turnRow struct {
	N        int
	Question session.Message
	Changes  []checkpoint.Change
	Has      bool // it has checkpoints (it ran a tool that may change files)
	// Interrupted: chat stopped during the turn (a crash, kill -9): its
	// changes are counted up to the next turn, or up to the files now.
	Interrupted bool
}

// turnRows numbers the questions of msgs (from 1) with their checkpoints.
// A last turn chat never finished is compared with the files in wd as
// they are now.
func turnRows(msgs []session.Message, st *checkpoint.Store, wd string) ([]turnRow, error) {
	turns, err := st.Turns(nil)
	if err != nil {
		return nil, err
	}
	if n := len(turns); n > 0 && turns[n-1].Interrupted && wd != "" {
		if now, err := st.Peek(wd); err == nil {
			if turns, err = st.Turns(now); err != nil {
				return nil, err
			}
		}
	}
	byID := map[string]checkpoint.Turn{}
	for _, t := range turns {
		byID[t.ID] = t
	}
	var rows []turnRow
	for _, m := range msgs {
		if m.Role != session.RoleUser {
			continue
		}
		t, ok := byID[m.ID]
		rows = append(rows, turnRow{N: len(rows) + 1, Question: m, Changes: t.Changes, Has: ok, Interrupted: ok && t.Interrupted})
	}
	return rows, nil
}

// writeTurns lists rows: number, question, and the files each changed.
func writeTurns(w io.Writer, rows []turnRow) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no turns yet")
		return
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%3d  %s\n", r.N, listener.VisibleString(session.Title(r.Question.Content)))
		if r.Interrupted {
			fmt.Fprintln(w, "       (interrupted: chat stopped during this turn; its changes are counted up to the next turn, or to the files as they are now)")
		}
		switch {
		case !r.Has:
			fmt.Fprintln(w, "       (no file changes)")
		case len(r.Changes) == 0:
			fmt.Fprintln(w, "       (tools ran; no file changed)")
		}
		for _, ch := range r.Changes {
			fmt.Fprintf(w, "       %c %s\n", ch.Kind, listener.VisibleString(ch.Path))
		}
	}
}

// rewindFiles puts the files back as they were before turn row n: from
// the first turn at or after it that has checkpoints.
func rewindFiles(wd string, rows []turnRow, n int, st *checkpoint.Store, force bool) (checkpoint.Result, bool, error) {
	for _, r := range rows[n-1:] {
		if r.Has {
			res, err := st.Rewind(wd, r.Question.ID, force)
			return res, true, err
		}
	}
	return checkpoint.Result{}, false, nil
}

// writeRewind says what a rewind did, and what it left alone.
func writeRewind(w io.Writer, res checkpoint.Result, any bool, force string) {
	if !any {
		fmt.Fprintln(w, "no file changed since then: nothing to restore")
		return
	}
	if len(res.Restored) == 0 && len(res.Conflicts) == 0 && len(res.Unrestorable) == 0 && len(res.Refused) == 0 {
		fmt.Fprintln(w, "the files are already as they were")
	}
	for _, ch := range res.Restored {
		fmt.Fprintf(w, "restored %c %s\n", ch.Kind, listener.VisibleString(ch.Path))
	}
	listPaths(w, fmt.Sprintf("left alone (changed after the agent, by you or another program; %s overwrites them):", force), res.Conflicts)
	listPaths(w, "cannot restore (over the checkpoint size limit, not stored):", res.Unrestorable)
	listPaths(w, "not restored (inside .git, or a folder on the way is now a symbolic link; restoring would write where it points):", res.Refused)
}

func listPaths(w io.Writer, title string, paths []string) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", listener.VisibleString(p))
	}
}

// removeCheckpoints deletes a session's checkpoints (chat sessions rm).
func removeCheckpoints(getenv func(string) string, sessionID string) {
	_ = os.RemoveAll(checkpointDir(getenv, sessionID))
}

// rewindTarget is a saved session opened for the checkpoint commands:
// locked, with its checkpoints.
type rewindTarget struct {
	info   session.Info
	loaded session.Loaded
	store  *checkpoint.Store
	unlock func()
}

func openRewindTarget(d deps, cfg config.Config, resume string) (*rewindTarget, error) {
	st := session.Store{Dir: session.DefaultDir(d.getenv)}
	var info session.Info
	var err error
	if resume != "" {
		info, err = st.Find(resume)
	} else {
		wd, werr := d.workdir()
		if werr != nil {
			return nil, werr
		}
		info, err = st.Latest(wd)
	}
	if err != nil {
		return nil, err
	}
	unlock, err := st.Lock(info.ID)
	if err != nil {
		return nil, fmt.Errorf("%w: end it first", err)
	}
	l, err := session.Load(info.Path)
	if err != nil {
		unlock()
		return nil, err
	}
	return &rewindTarget{info: info, loaded: l, store: checkpointStore(d, cfg, info.ID), unlock: unlock}, nil
}

// openTurns opens the session the checkpoint commands work on (locked:
// release with t.unlock) and numbers its turns.
func openTurns(cmd *cobra.Command, d deps, o *rootOptions, resume string) (*rewindTarget, []turnRow, error) {
	cfg, err := loadConfig(cmd, d, o)
	if err != nil {
		return nil, nil, err
	}
	t, err := openRewindTarget(d, cfg, resume)
	if err != nil {
		return nil, nil, err
	}
	rows, err := turnRows(t.loaded.Messages, t.store, t.info.Dir)
	if err != nil {
		t.unlock()
		return nil, nil, err
	}
	return t, rows, nil
}

// checkpointsOptions is what `chat checkpoints` was asked.
type checkpointsOptions struct {
	cmd    *cobra.Command
	Resume string
}

// newCheckpointsCmd builds `chat checkpoints`; runF (nil: the real one)
// gets the parsed options, so a test can see what a command line became.
func newCheckpointsCmd(d deps, o *rootOptions, runF func(checkpointsOptions) error) *cobra.Command {
	if runF == nil {
		runF = func(co checkpointsOptions) error { return runCheckpoints(d, o, co) }
	}
	var co checkpointsOptions
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List the turns of the latest session here and the files each changed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			co.cmd = cmd
			return runF(co)
		},
	}
	cmd.Flags().StringVarP(&co.Resume, "resume", "r", "", "the session with this id (default: the latest of this directory)")
	return cmd
}

func runCheckpoints(d deps, o *rootOptions, co checkpointsOptions) error {
	t, rows, err := openTurns(co.cmd, d, o, co.Resume)
	if err != nil {
		return err
	}
	defer t.unlock()
	fmt.Fprintf(d.stdout, "session %s · %s\n", session.ShortID(t.info.ID), listener.VisibleString(t.info.Title))
	writeTurns(d.stdout, rows)
	return nil
}

// rewindOptions is what `chat rewind` was asked.
type rewindOptions struct {
	cmd                        *cobra.Command
	Turn, Resume               string
	FilesOnly, ConvOnly, Force bool
}

// newRewindCmd builds `chat rewind`; runF as newCheckpointsCmd's.
func newRewindCmd(d deps, o *rootOptions, runF func(rewindOptions) error) *cobra.Command {
	if runF == nil {
		runF = func(ro rewindOptions) error { return runRewind(d, o, ro) }
	}
	var ro rewindOptions
	cmd := &cobra.Command{
		Use:   "rewind [N]",
		Short: "Put the files and the conversation back as they were before turn N (default: the last)",
		Long: `rewind undoes what the agent did from turn N on (chat checkpoints lists them):
the files it created, changed or deleted come back as they were, and the
conversation is cut back to before that question (the session file keeps
the rest, marked). A file changed after the agent, by you or another
program, is left alone and listed, unless --force. Unlike /undo, which
only drops the last question and its answer, rewind also restores files.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ro.cmd = cmd
			if len(args) == 1 {
				ro.Turn = args[0]
			}
			return runF(ro)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&ro.Resume, "resume", "r", "", "the session with this id (default: the latest of this directory)")
	f.BoolVar(&ro.FilesOnly, "files-only", false, "restore the files, keep the conversation")
	f.BoolVar(&ro.ConvOnly, "conversation-only", false, "cut the conversation back, leave the files")
	f.BoolVar(&ro.Force, "force", false, "also overwrite files changed after the agent changed them")
	return cmd
}

func runRewind(d deps, o *rootOptions, ro rewindOptions) error {
	if ro.FilesOnly && ro.ConvOnly {
		return fmt.Errorf("--files-only and --conversation-only exclude each other")
	}
	t, rows, err := openTurns(ro.cmd, d, o, ro.Resume)
	if err != nil {
		return err
	}
	defer t.unlock()
	if len(rows) == 0 {
		return fmt.Errorf("session %s has no turns to rewind", session.ShortID(t.info.ID))
	}
	n := len(rows)
	if ro.Turn != "" {
		if _, err := fmt.Sscan(ro.Turn, &n); err != nil || n < 1 || n > len(rows) {
			return fmt.Errorf("turn %q: give a number from 1 to %d (chat checkpoints lists them)", ro.Turn, len(rows))
		}
	}
	wd, err := d.workdir()
	if err != nil {
		return err
	}
	if !ro.ConvOnly {
		if t.loaded.Header.Dir != "" && t.loaded.Header.Dir != wd {
			return fmt.Errorf("session %s was made in %s: run chat rewind there", session.ShortID(t.info.ID), t.loaded.Header.Dir)
		}
		res, any, err := rewindFiles(wd, rows, n, t.store, ro.Force)
		if err != nil {
			return err
		}
		writeRewind(d.stdout, res, any, "--force")
	}
	if !ro.FilesOnly {
		return rewindConversation(d, t, rows[n-1])
	}
	return nil
}

// rewindConversation cuts a saved session back to before row's question.
func rewindConversation(d deps, t *rewindTarget, row turnRow) error {
	s := session.New(t.loaded.Messages...)
	s.KeepRewound(t.loaded.Rewound)
	gone, err := s.ArchiveFrom(row.Question.ID)
	if err != nil {
		return err
	}
	w, _, err := session.Store{Dir: session.DefaultDir(d.getenv)}.Continue(t.loaded)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Sync(s); err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "conversation rewound to before turn %d (%d messages taken out; the session file keeps them): chat --continue goes on from there\n", row.N, len(gone))
	return nil
}

// rewinder is /rewind's, nil when checkpoints are off.
func rewinder(w *wired) tui.Rewinder {
	if w.checkpoints == nil {
		return nil
	}
	w.checkpoints.mu.Lock()
	w.checkpoints.hold = true
	w.checkpoints.mu.Unlock()
	return replRewinder{w: w, cp: w.checkpoints}
}

// replRewinder is /rewind: the checkpoints of the session in use and the
// session itself.
type replRewinder struct {
	w  *wired
	cp *checkpointer
}

func (r replRewinder) rows() ([]turnRow, *checkpoint.Store, error) {
	r.cp.mu.Lock()
	st := r.cp.store
	r.cp.mu.Unlock()
	if st == nil {
		return nil, nil, fmt.Errorf("no checkpoints yet")
	}
	rows, err := turnRows(r.w.agent.Session().Messages(), st, r.cp.wd)
	return rows, st, err
}

func (r replRewinder) Turns() (string, error) {
	rows, _, err := r.rows()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range r.cp.takeNotes() {
		b.WriteString(n + "\n")
	}
	b.WriteString("turns of this session:\n")
	writeTurns(&b, rows)
	return b.String(), nil
}

func (r replRewinder) Rewind(n int, files, conversation, force bool) (string, string, error) {
	rows, st, err := r.rows()
	if err != nil {
		return "", "", err
	}
	if n > len(rows) {
		return "", "", fmt.Errorf("there are %d turns; /rewind lists them", len(rows))
	}
	var b strings.Builder
	if files {
		res, any, err := rewindFiles(r.cp.wd, rows, n, st, force)
		if err != nil {
			return "", "", err
		}
		writeRewind(&b, res, any, fmt.Sprintf("/rewind %d files force", n))
	}
	question := ""
	if conversation {
		s := r.w.agent.Session()
		gone, err := s.ArchiveFrom(rows[n-1].Question.ID)
		if err != nil {
			return b.String(), "", err
		}
		r.w.host.save(s)
		question = rows[n-1].Question.Content
		fmt.Fprintf(&b, "conversation rewound to before turn %d (%d messages taken out; the session file keeps them)\n", n, len(gone))
	}
	return b.String(), question, nil
}
