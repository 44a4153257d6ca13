package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chatrepl/chat/checkpoint"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/xdg"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/session"
	"github.com/chatrepl/chat/tool"
)

// checkpointDir is where a session's checkpoints live.
func checkpointDir(getenv func(string) string, sessionID string) string {
	return xdg.State.Chat(getenv, "checkpoints", sessionID)
}

// CheckpointStore is the store of a session, bounded as the config says.
func CheckpointStore(getenv func(string) string, cfg config.Config, sessionID string) *checkpoint.Store {
	return &checkpoint.Store{Dir: checkpointDir(getenv, sessionID),
		MaxTotal: int64(cfg.Checkpoints.MaxSizeMB) << 20, MaxFileSize: int64(cfg.Checkpoints.MaxFileMB) << 20}
}

// checkpointer takes the run's checkpoints: before each call that may
// change files (once it is approved) and when a turn that made one ends.
// A turn is the stretch after a question of the person's, named by its id.
type checkpointer struct {
	env Env
	cfg config.Config
	wd  string
	// tools finds the tool a call names, to ask whether it may change
	// files (set once the agent exists).
	tools func() *tool.Set

	// behind counts the turn-end checkpoints still being taken.
	behind sync.WaitGroup

	mu      sync.Mutex
	sess    *session.Session
	store   *checkpoint.Store
	pending string // the turn that took a checkpoint and still needs its "after"
	verdict string // what the language servers said as that turn ended
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
	fmt.Fprintln(c.env.Stderr, text)
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
func newCheckpointer(spec Spec, host *sessionHost) (*checkpointer, error) {
	cfg := spec.Config
	if cfg.Checkpoints.Off {
		return nil, nil
	}
	c := &checkpointer{env: spec.Env, cfg: cfg, wd: spec.Env.Workdir}
	host.attached = func(s *session.Session, id string) {
		c.attach(s, CheckpointStore(spec.Env.Getenv, cfg, id), strings.HasPrefix(id, "unsaved-"))
	}
	spec.Listeners.Add(c)
	return c, nil
}

// close removes the checkpoints of an unsaved session.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.settle()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store != nil && c.unsaved {
		_ = c.store.Remove()
	}
}

// attach follows the session now in use (a new one, /resume).
func (c *checkpointer) attach(s *session.Session, store *checkpoint.Store, unsaved bool) {
	c.settle() // the session left gets its last turn's end
	c.mu.Lock()
	if c.store != nil && c.unsaved {
		_ = c.store.Remove()
	}
	c.sess, c.store, c.pending, c.unsaved = s, store, "", unsaved
	c.mu.Unlock()
	s.OnStart(func(call session.ToolCall) {
		if c.changesFiles(call.Name) {
			c.settle() // the last turn's end first: it must not see this call's changes
			c.take(s, "before "+call.Name)
		}
	})
}

// changesFiles says whether a call of the named tool may change files: as
// the tool declares (a tool chat no longer finds is assumed to).
func (c *checkpointer) changesFiles(name string) bool {
	if c.tools == nil {
		return true
	}
	t, ok := c.tools().Lookup(name)
	return !ok || tool.ChangesFiles(t)
}

// changedSinceCall lists the files (absolute) that changed since the
// checkpoint taken before the call that just ran; none when checkpoints
// are off or failed.
func (c *checkpointer) changedSinceCall() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	store := c.store
	c.mu.Unlock()
	if store == nil {
		return nil
	}
	changes, err := store.SinceLast(c.wd)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(changes))
	for _, ch := range changes {
		out = append(out, filepath.Join(c.wd, filepath.FromSlash(ch.Path)))
	}
	return out
}

// take records a checkpoint of the turn s is in.
func (c *checkpointer) take(s *session.Session, label string) {
	q, ok := s.LastQuestion()
	if !ok {
		return
	}
	c.takeFor(s, q.ID, label, "")
}

// takeFor records a checkpoint of the turn of question id.
func (c *checkpointer) takeFor(s *session.Session, id, label, about string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != c.sess || c.store == nil {
		return
	}
	_, note, err := c.store.TakeNoted(c.wd, id, label, about)
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
		c.pending = id
	}
}

// OnEvent takes the "after" checkpoint when a turn of the main agent that
// changed files ends, so what the person does next is theirs. The scan
// runs behind: the turn's end reaches the person first (a listener must
// return at once), what it has to say comes when it is done, and a
// rewind, the next call's checkpoint and the end of the run wait for it.
func (c *checkpointer) OnEvent(e listener.Event) {
	if d, ok := e.(listener.DiagnosticsDelta); ok && d.Agent == "" {
		c.mu.Lock()
		c.verdict = "diagnostics: " + d.DeltaText()
		c.mu.Unlock()
		return
	}
	done, ok := e.(listener.TurnDone)
	if !ok || done.Agent != "" {
		return
	}
	c.mu.Lock()
	s, pending, verdict := c.sess, c.pending, c.verdict
	c.pending, c.verdict = "", ""
	c.mu.Unlock()
	if pending == "" {
		return
	}
	c.behind.Add(1)
	go func() {
		defer c.behind.Done()
		c.takeFor(s, pending, "after", verdict)
	}()
}

// settle waits for the checkpoint being taken behind, if any.
func (c *checkpointer) settle() { c.behind.Wait() }

// TurnRow is one question of a session and what its turn did to files.
type TurnRow struct {
	N        int
	Question session.Message
	Changes  []checkpoint.Change
	Has      bool // it has checkpoints (it ran a tool that may change files)
	// Interrupted: chat stopped during the turn (a crash, kill -9): its
	// changes are counted up to the next turn, or up to the files now.
	Interrupted bool
	// Verdict is what the language servers said as it ended ("" when
	// none took its files).
	Verdict string
}

// TurnRows numbers the questions of msgs (from 1) with their checkpoints.
// A last turn chat never finished is compared with the files in wd as
// they are now.
func TurnRows(msgs []session.Message, st *checkpoint.Store, wd string) ([]TurnRow, error) {
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
	var rows []TurnRow
	for _, m := range msgs {
		if m.Role != session.RoleUser || m.MidTurn {
			continue // text sent into a turn is part of it
		}
		t, ok := byID[m.ID]
		rows = append(rows, TurnRow{N: len(rows) + 1, Question: m, Changes: t.Changes, Has: ok, Interrupted: ok && t.Interrupted, Verdict: t.Note})
	}
	return rows, nil
}

// WriteTurns lists rows: number, question, and the files each changed.
func WriteTurns(w io.Writer, rows []TurnRow) {
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
		if r.Verdict != "" {
			fmt.Fprintf(w, "       %s\n", listener.VisibleString(r.Verdict))
		}
	}
}

// RewindFiles puts the files back as they were before turn row n: from
// the first turn at or after it that has checkpoints.
func RewindFiles(wd string, rows []TurnRow, n int, st *checkpoint.Store, force bool) (checkpoint.Result, bool, error) {
	for _, r := range rows[n-1:] {
		if r.Has {
			res, err := st.Rewind(wd, r.Question.ID, force)
			return res, true, err
		}
	}
	return checkpoint.Result{}, false, nil
}

// WriteRewind says what a rewind did, and what it left alone.
func WriteRewind(w io.Writer, res checkpoint.Result, any bool, force string) {
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

// RemoveCheckpoints deletes a session's checkpoints (chat sessions rm).
func RemoveCheckpoints(getenv func(string) string, sessionID string) {
	_ = os.RemoveAll(checkpointDir(getenv, sessionID))
}

// Rewinder is /rewind: the checkpoints of the session in use and the
// session itself.
type Rewinder interface {
	// Turns lists the session's questions, numbered from 1, with the files
	// each turn changed.
	Turns() (string, error)
	// Rewind puts the files and/or the conversation back to before turn n
	// and says what it did; question is the rewound question's text when
	// the conversation was cut (it goes back into the input).
	Rewind(n int, files, conversation, force bool) (report, question string, err error)
}

// Rewinder is the run's /rewind, nil when checkpoints are off.
func (r *Run) Rewinder() Rewinder {
	if r.checkpoints == nil {
		return nil
	}
	return replRewinder{w: r, cp: r.checkpoints}
}

// OnScreen says a front end draws on the terminal from now on: what the
// run would write to Env.Stderr goes elsewhere. The hooks report through
// report; notes about checkpoints are held for /rewind.
func (r *Run) OnScreen(report func(string)) {
	r.onScreen = report
	r.HookNotes(report)
	if c := r.checkpoints; c != nil {
		c.mu.Lock()
		c.hold = true
		c.mu.Unlock()
	}
}

type replRewinder struct {
	w  *Run
	cp *checkpointer
}

func (r replRewinder) rows() ([]TurnRow, *checkpoint.Store, error) {
	r.cp.settle() // a rewind works on the checkpoint a turn's end is taking
	r.cp.mu.Lock()
	st := r.cp.store
	r.cp.mu.Unlock()
	if st == nil {
		return nil, nil, fmt.Errorf("no checkpoints yet")
	}
	rows, err := TurnRows(r.w.agent.Session().Messages(), st, r.cp.wd)
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
	WriteTurns(&b, rows)
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
		res, any, err := RewindFiles(r.cp.wd, rows, n, st, force)
		if err != nil {
			return "", "", err
		}
		WriteRewind(&b, res, any, fmt.Sprintf("/rewind %d files force", n))
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
