package tool

import (
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/tool/sandbox"
)

// gitWatchEvery is how often the repositories are checked while anything
// runs in the box: a job, or what a command left running. A check that
// finds nothing changed costs a walk of the folders and a stat of the
// files git reads (see BenchmarkGitWatchIdle).
const gitWatchEvery = 500 * time.Millisecond

// gitWatch keeps the repositories of a run's working directory free of
// what the box adds that makes git run a program: after every boxed
// command and, while anything still runs in the box, every
// gitWatchEvery, so that a job cannot plant config between two commands
// for the person's next git status. What it undoes is said to the person
// (Guarded) and to the model (with the next tool result).
type gitWatch struct {
	c     *Confinement
	guard *sandbox.GitGuard

	mu       sync.Mutex
	inFlight int      // boxed commands and jobs running now
	busy     bool     // the box was busy at the last tick
	pending  []string // undone while no call was there to say it
	started  bool
	stop     chan struct{}
}

func newGitWatch(c *Confinement) *gitWatch {
	return &gitWatch{c: c, guard: sandbox.NewGitGuard(c.Spec.Workdir), stop: make(chan struct{})}
}

// before is called as a boxed command starts: when nothing runs in the
// box, the repositories as they are now are the person's.
func (w *gitWatch) before() {
	w.mu.Lock()
	idle := w.inFlight == 0 && !w.busy
	w.inFlight++
	if !w.started {
		w.started = true
		go w.loop()
	}
	w.mu.Unlock()
	if idle && !w.c.boxBusy() {
		w.guard.Accept()
	} else {
		w.report(w.guard.Check())
	}
}

// after is called as a boxed command ends; it returns what was undone.
// While other commands still run, a repository being made is left to the
// next check.
func (w *gitWatch) after() []string {
	w.mu.Lock()
	others := w.inFlight > 1
	w.mu.Unlock()
	var undone []string
	if others || w.c.boxBusy() {
		undone = w.guard.CheckWhileRunning()
	} else {
		undone = w.guard.Check()
	}
	w.mu.Lock()
	w.inFlight--
	w.mu.Unlock()
	return undone
}

func (w *gitWatch) loop() {
	tick := time.NewTicker(gitWatchEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		w.mu.Lock()
		running := w.inFlight > 0
		was := w.busy
		w.mu.Unlock()
		busy := running || w.c.boxBusy()
		switch {
		case busy:
			w.report(w.guard.CheckWhileRunning())
		case was:
			// The last check after the box went quiet catches what was
			// written just before, and judges what was being made.
			w.report(w.guard.Check())
		}
		w.mu.Lock()
		w.busy = busy
		w.mu.Unlock()
	}
}

// report tells the person and keeps the notes for the model.
func (w *gitWatch) report(undone []string) {
	if len(undone) == 0 {
		return
	}
	note := guardNote(undone)
	w.mu.Lock()
	w.pending = append(w.pending, note)
	w.mu.Unlock()
	if f := w.c.Guarded; f != nil {
		f(note)
	}
}

// take returns the notes not yet given to the model.
func (w *gitWatch) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(w.pending, "\n")
	w.pending = nil
	return s
}

func (w *gitWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
}

// guardNote says what was undone, to the model and the person alike.
func guardNote(undone []string) string {
	return "[chat undid what a command in the sandbox made that would run a program outside it, the next time you or the person use git (or direnv, or chat): " + strings.Join(undone, "; ") + "]"
}
