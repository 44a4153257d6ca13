package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// Defaults of a Manager's bounds.
const (
	DefaultWait  = 2 * time.Second  // an edit's wait for its verdict
	DefaultStart = 20 * time.Second // a server's start and handshake
	// quiet is how long no new verdict must come, after the one for the
	// edit, before the verdict is taken as settled: a server may say a
	// file's parse errors first and its type errors just after.
	quiet = 150 * time.Millisecond
	// stallsToDrop: a server that gives no verdict this many checks in a
	// row, and says nothing else meanwhile, is dropped.
	stallsToDrop = 3
)

// Manager is the language servers of one run, started when a file of
// theirs is first checked. Safe for concurrent use.
type Manager struct {
	Root    string   // the workspace: files outside it are not checked
	Servers []Server // from Resolve
	Start   Starter
	// Wait bounds how long one check waits for verdicts (DefaultWait
	// when zero); StartWait how long a server may take to start.
	Wait, StartWait time.Duration
	// Notice hears, once per server, that it failed and was dropped.
	Notice func(string)
	// Ready hears that a server has started (each time one does).
	Ready func(name string)

	mu       sync.Mutex
	conns    map[string]*conn         // by server name and root
	starting map[string]chan struct{} // closed when a start ends
	dropped  map[string]bool          // server names, once failed
	stalls   map[string]int           // checks in a row without a verdict
	stalled  map[string]bool          // stalled in this turn: not waited for again
	touched  map[string]uint64        // path → the check that last touched it
	before   map[string]Count         // what a path had when the turn first touched it
	checks   uint64
	verdict  bool // a server gave a verdict on a file in this turn
	closed   bool
}

// Count is a number of errors and warnings.
type Count struct{ Errors, Warnings int }

// Diagnostic is one error or warning of a file, as a server said it.
type Diagnostic struct {
	Line, Column int    // 1-based
	Severity     string // "error" or "warning"
	Source       string // the server's name for its origin: "compiler", "ts" …
	Code         string
	Message      string
}

// File is a file's diagnostics after a check.
type File struct {
	Path   string // absolute
	Server string
	Diags  []Diagnostic
	// Fresh: the server gave its verdict on the file as it is now; not
	// fresh, what is known is older (or nothing) and is not said.
	Fresh bool
}

// Report is what one check found.
type Report struct {
	Files []File // the checked files a server took, newest change first
	// Others are the errors (and warnings) the servers know of in files
	// the check did not touch, in OtherFiles files.
	Others     Count
	OtherFiles int
	// Pending names the servers that gave no verdict within the bound
	// (starting, or slow): what they say later shows in /diagnostics and
	// at the turn's end.
	Pending []string
}

// Serves reports whether some server takes files named like path.
func (m *Manager) Serves(path string) bool {
	_, ok := m.serverFor(path)
	return ok
}

func (m *Manager) serverFor(path string) (Server, bool) {
	if m == nil {
		return Server{}, false
	}
	for _, s := range m.Servers {
		if s.serves(path) {
			return s, true
		}
	}
	return Server{}, false
}

// BeginTurn forgets the turn before: its stalls and what its files had.
func (m *Manager) BeginTurn() {
	m.mu.Lock()
	m.stalled, m.before, m.verdict = nil, nil, false
	m.mu.Unlock()
}

// rootFor is the folder a server works in for path: the nearest folder,
// from the file's up to the workspace, holding one of its root markers;
// the workspace when none does.
func (m *Manager) rootFor(s Server, path string) string {
	for dir := filepath.Dir(path); within(m.Root, dir); dir = filepath.Dir(dir) {
		for _, mk := range s.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, mk)); err == nil {
				return dir
			}
		}
		if dir == m.Root || dir == filepath.Dir(dir) {
			break
		}
	}
	return m.Root
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Check syncs paths (absolute; those no server takes are left alone) to
// their servers, starting them as needed, and waits at most the bound
// for the servers' verdicts on them.
func (m *Manager) Check(ctx context.Context, paths []string) Report {
	var rep Report
	if m == nil || len(m.Servers) == 0 {
		return rep
	}
	wait := time.Duration(0)
	for _, p := range paths {
		if s, ok := m.serverFor(p); ok {
			wait = max(wait, m.waitFor(s))
		}
	}
	if wait == 0 {
		return rep
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()

	type job struct {
		path    string
		c       *conn
		key     string
		since   uint64
		version int32
	}
	m.mu.Lock()
	m.checks++
	check := m.checks
	m.mu.Unlock()
	var jobs []job
	seen := map[string]bool{}
	for _, p := range paths {
		p = filepath.Clean(p)
		s, ok := m.serverFor(p)
		if !ok || seen[p] || !within(m.Root, p) {
			continue
		}
		seen[p] = true
		root := m.rootFor(s, p)
		key := s.Name + "\x00" + root
		m.mu.Lock()
		if m.before == nil {
			m.before = map[string]Count{}
		}
		if _, ok := m.before[p]; !ok {
			m.before[p] = m.countLocked(p)
		}
		if m.touched == nil {
			m.touched = map[string]uint64{}
		}
		m.touched[p] = check
		m.mu.Unlock()
		wasStalled := m.isStalled(key)
		c := m.connFor(ctx, s, root, key)
		if c == nil {
			if !m.isDropped(s.Name) && !wasStalled {
				// Still starting when the bound ran out: the rest of the
				// turn does not wait for it again.
				m.mu.Lock()
				if m.stalled == nil {
					m.stalled = map[string]bool{}
				}
				m.stalled[key] = true
				m.mu.Unlock()
				rep.Pending = appendOnce(rep.Pending, s.Name)
			}
			continue
		}
		since, v, err := c.sync(ctx, p)
		if err != nil {
			if !c.alive() {
				m.drop(key, c, c.failure(err))
			}
			continue
		}
		if v == 0 { // the file is gone: nothing to wait for
			continue
		}
		jobs = append(jobs, job{path: p, c: c, key: key, since: since, version: v})
	}

	// Wait for a verdict on every file, then for the servers to go quiet.
	waited := map[string]bool{}
	for _, j := range jobs {
		if m.isStalled(j.key) {
			continue
		}
		waited[j.key] = true
		if j.c.pulls {
			if err := j.c.pullTsserver(ctx, j.path, j.version); err != nil && !j.c.alive() {
				m.drop(j.key, j.c, j.c.failure(err))
			}
			continue
		}
		asked := time.Now()
		if !j.c.await(ctx, func() bool { return j.c.fresh(j.path, j.since, j.version) }) {
			if !j.c.alive() {
				m.drop(j.key, j.c, j.c.failure(nil))
			}
			continue
		}
		// A verdict that names the version sent is that version's; one
		// that names none may be followed by more, so the server's quiet
		// is waited for.
		j.c.mu.Lock()
		versioned := j.c.files[j.path].version == j.version
		j.c.mu.Unlock()
		if !versioned {
			// As long again as the first word took, at least quiet: the
			// TypeScript server says a file's syntax first and its types
			// later, and on a loaded machine both are slow alike.
			j.c.settle(ctx, max(quiet, time.Since(asked)))
		}
	}
	for _, j := range jobs {
		j.c.mu.Lock()
		fresh := j.c.fresh(j.path, j.since, j.version)
		var diags []Diagnostic
		if fresh {
			diags = convert(j.c.files[j.path].diags)
		}
		j.c.mu.Unlock()
		if waited[j.key] && parent.Err() == nil {
			// A server the turn stopped waiting for is not counted (or
			// said) again until it gives a verdict; a call cancelled
			// (the person's Ctrl+C) is not the server's stall.
			m.noteVerdict(j.key, j.c, fresh)
			if !fresh {
				rep.Pending = appendOnce(rep.Pending, j.c.server.Name)
			}
		}
		if fresh {
			m.mu.Lock()
			m.verdict = true
			m.mu.Unlock()
		}
		rep.Files = append(rep.Files, File{Path: j.path, Server: j.c.server.Name, Diags: diags, Fresh: fresh})
	}
	rep.Others, rep.OtherFiles = m.others(seen)
	return rep
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (m *Manager) waitFor(s Server) time.Duration {
	if s.Wait > 0 {
		return s.Wait
	}
	if m.Wait > 0 {
		return m.Wait
	}
	return DefaultWait
}

// connFor is the running server for key, started when there is none;
// nil when it failed, or is still starting when ctx ends (the start goes
// on behind: a later check finds it).
func (m *Manager) connFor(ctx context.Context, s Server, root, key string) *conn {
	m.mu.Lock()
	if m.closed || m.dropped[s.Name] {
		m.mu.Unlock()
		return nil
	}
	if c := m.conns[key]; c != nil {
		m.mu.Unlock()
		if c.alive() {
			return c
		}
		m.drop(key, c, c.failure(nil))
		return nil
	}
	done, started := m.starting[key]
	if !started {
		if m.starting == nil {
			m.starting = map[string]chan struct{}{}
		}
		done = make(chan struct{})
		m.starting[key] = done
		go m.startServer(s, root, key, done)
	}
	stalled := m.stalled[key]
	m.mu.Unlock()
	if stalled {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[key]
}

func (m *Manager) startServer(s Server, root, key string, done chan struct{}) {
	bound := m.StartWait
	if bound <= 0 {
		bound = DefaultStart
	}
	c, err := dial(m.Start, s, root, bound)
	m.mu.Lock()
	delete(m.starting, key)
	closed := m.closed
	if err == nil && !closed {
		if m.conns == nil {
			m.conns = map[string]*conn{}
		}
		m.conns[key] = c
	}
	m.mu.Unlock()
	switch {
	case err != nil:
		m.drop(key, nil, err) // before a check waiting for the start looks
	case !closed && m.Ready != nil:
		m.Ready(s.Name) // before the check goes on: its next request offers what Ready adds
	}
	close(done)
	if err == nil && closed {
		c.close(time.Second)
	}
}

// drop stops using a server for the rest of the run, said once.
func (m *Manager) drop(key string, c *conn, why error) {
	name, _, _ := strings.Cut(key, "\x00")
	m.mu.Lock()
	if m.conns[key] == c {
		delete(m.conns, key)
	}
	first := !m.dropped[name]
	if m.dropped == nil {
		m.dropped = map[string]bool{}
	}
	m.dropped[name] = true
	closed := m.closed
	m.mu.Unlock()
	if c != nil {
		go c.close(0)
	}
	if first && !closed && m.Notice != nil {
		m.Notice(fmt.Sprintf("language server %s: %v; chat goes on without it for this run", name, why))
	}
}

func (m *Manager) isDropped(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped[name]
}

func (m *Manager) isStalled(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stalled[key]
}

// noteVerdict counts a server's checks without a verdict: one stalls the
// rest of the turn (its bound is paid once), stallsToDrop in a row drop it.
func (m *Manager) noteVerdict(key string, c *conn, fresh bool) {
	m.mu.Lock()
	if m.stalls == nil {
		m.stalls, m.stalled = map[string]int{}, map[string]bool{}
	}
	if m.stalled == nil {
		m.stalled = map[string]bool{}
	}
	if fresh {
		m.stalls[key] = 0
		delete(m.stalled, key)
		m.mu.Unlock()
		return
	}
	m.stalls[key]++
	m.stalled[key] = true
	n := m.stalls[key]
	m.mu.Unlock()
	if n >= stallsToDrop {
		m.drop(key, c, fmt.Errorf("it gave no diagnostics %d times in a row", n))
	}
}

// await waits until ok (checked at each publish) or ctx ends.
func (c *conn) await(ctx context.Context, ok func() bool) bool {
	for {
		c.mu.Lock()
		if ok() {
			c.mu.Unlock()
			return true
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-c.ended:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// settle waits until the server has published nothing for quiet (or ctx ends).
func (c *conn) settle(ctx context.Context, quiet time.Duration) {
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		t := time.NewTimer(quiet)
		select {
		case <-ch:
			t.Stop()
			continue
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		return
	}
}

// countLocked is what the servers last said of path; m.mu is held.
func (m *Manager) countLocked(path string) Count {
	var n Count
	for _, c := range m.conns {
		c.mu.Lock()
		n = n.add(countOf(convert(c.files[path].diags)))
		c.mu.Unlock()
	}
	return n
}

func (n Count) add(o Count) Count { return Count{n.Errors + o.Errors, n.Warnings + o.Warnings} }

func countOf(ds []Diagnostic) Count {
	var n Count
	for _, d := range ds {
		if d.Severity == "error" {
			n.Errors++
		} else {
			n.Warnings++
		}
	}
	return n
}

// others counts what the servers know of files not in skip.
func (m *Manager) others(skip map[string]bool) (Count, int) {
	var n Count
	files := 0
	for _, f := range m.Current() {
		if skip[f.Path] {
			continue
		}
		if c := countOf(f.Diags); c.Errors+c.Warnings > 0 {
			n = n.add(c)
			files++
		}
	}
	return n, files
}

// Current is every file's last errors and warnings the servers said
// (files without any left out), newest change first.
func (m *Manager) Current() []File {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	touched := m.touched
	var out []File
	for _, c := range conns {
		c.mu.Lock()
		for p, pub := range c.files {
			if ds := convert(pub.diags); len(ds) > 0 {
				out = append(out, File{Path: p, Server: c.server.Name, Diags: ds, Fresh: true})
			}
		}
		c.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		ti, tj := touched[out[i].Path], touched[out[j].Path]
		if ti != tj {
			return ti > tj
		}
		return out[i].Path < out[j].Path
	})
	m.mu.Unlock()
	return out
}

// Delta is what a turn did to the diagnostics of the files it touched.
type Delta struct {
	Before, After Count
	Files         int // touched files with errors or warnings after
	Touched       int // touched files a server took
}

// TurnDelta compares the files the turn touched, as they were when it
// first touched them, with what the servers say of them now; ok is false
// when the turn touched none a server took.
func (m *Manager) TurnDelta() (d Delta, ok bool) {
	if m == nil {
		return d, false
	}
	m.mu.Lock()
	before, verdict := m.before, m.verdict
	m.mu.Unlock()
	if len(before) == 0 || !verdict {
		return d, false
	}
	for p, b := range before {
		d.Before = d.Before.add(b)
		m.mu.Lock()
		a := m.countLocked(p)
		m.mu.Unlock()
		d.After = d.After.add(a)
		if a.Errors+a.Warnings > 0 {
			d.Files++
		}
		d.Touched++
	}
	return d, true
}

// Running names the servers that run now.
func (m *Manager) Running() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, c := range m.conns {
		if c.alive() {
			out = appendOnce(out, c.server.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Close stops every server (each asked to shut down, then ended).
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	conns := m.conns
	m.conns = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.close(time.Second) })
	}
	wg.Wait()
}

// convert keeps a server's errors and warnings, in the file's order.
func convert(in []protocol.Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range in {
		sev := ""
		switch d.Severity {
		case protocol.DiagnosticSeverityError, 0:
			sev = "error"
		case protocol.DiagnosticSeverityWarning:
			sev = "warning"
		default:
			continue
		}
		code := ""
		if d.Code != nil {
			code = fmt.Sprint(d.Code)
		}
		out = append(out, Diagnostic{Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1,
			Severity: sev, Source: d.Source, Code: code, Message: strings.TrimSpace(d.Message)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Severity == "error") != (out[j].Severity == "error") {
			return out[i].Severity == "error"
		}
		return out[i].Line < out[j].Line
	})
	return out
}
