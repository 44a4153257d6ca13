package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/clip"
)

// JobRing is how much of a background job's output is kept: the newest
// bytes; what the agent or the person has not read by the time it is
// overwritten is counted, not kept.
const JobRing = 1 << 20

// Jobs are the commands running in the background of a run: each
// started by run_shell with background, in the same sandbox as any
// command, its output kept in a bounded ring. They outlive the turn that
// started them (cancelling a turn does not stop its jobs) and end with
// the run (StopAll), or with chat itself (the box dies with it).
type Jobs struct {
	mu     sync.Mutex
	next   int
	jobs   []*Job
	watch  func(JobEvent)
	frozen bool // plan mode stopped them
}

// SetFrozen says the running jobs are stopped (plan mode), or not.
func (js *Jobs) SetFrozen(on bool) {
	js.mu.Lock()
	js.frozen = on
	js.mu.Unlock()
}

// JobEvent says a job started, printed (at most every jobNotifyEvery) or
// ended.
type JobEvent struct {
	Job   *Job
	Ended bool
}

// jobNotifyEvery bounds how often a job's output is announced.
const jobNotifyEvery = 250 * time.Millisecond

// Watch has f hear of every job's start, output and end (a front end
// that shows jobs live: an editor). f must return quickly.
func (js *Jobs) Watch(f func(JobEvent)) {
	js.mu.Lock()
	js.watch = f
	js.mu.Unlock()
}

func (js *Jobs) notify(e JobEvent) {
	js.mu.Lock()
	f := js.watch
	js.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// Job is one background command.
type Job struct {
	ID      int
	Command string
	Started time.Time
	// CallID is the run_shell call that started it.
	CallID string
	jobs   *Jobs

	cancel  context.CancelFunc
	done    chan struct{}
	printed chan struct{} // closed at the first output

	mu     sync.Mutex
	ring   []byte // the newest output, at most JobRing bytes
	total  int64  // bytes written in all
	read   int64  // what the agent has read, as an offset into total
	exit   int
	err    error
	ended  time.Time
	stated bool      // the agent was told it ended
	told   time.Time // when its output was last announced
	// forwards are the job's servers, reached from the host.
	forwards []Forward
}

// Write keeps the newest JobRing bytes.
func (j *Job) Write(p []byte) (int, error) {
	j.mu.Lock()
	if j.total == 0 && len(p) > 0 {
		close(j.printed)
	}
	j.total += int64(len(p))
	if len(p) >= JobRing {
		j.ring = append(j.ring[:0], p[len(p)-JobRing:]...)
	} else {
		if over := len(j.ring) + len(p) - JobRing; over > 0 {
			j.ring = append(j.ring[:0], j.ring[over:]...)
		}
		j.ring = append(j.ring, p...)
	}
	tell := time.Since(j.told) >= jobNotifyEvery
	if tell {
		j.told = time.Now()
	}
	j.mu.Unlock()
	if tell && j.jobs != nil {
		j.jobs.notify(JobEvent{Job: j})
	}
	return len(p), nil
}

// Start runs command in the background through run (which runs it, in
// the box, writing its output to out, until ctx is done) and returns the
// job at once.
func (js *Jobs) Start(command, callID string, run func(ctx context.Context, out io.Writer) (int, error)) *Job {
	ctx, cancel := context.WithCancel(context.Background())
	js.mu.Lock()
	js.next++
	j := &Job{ID: js.next, Command: command, CallID: callID, Started: time.Now(), jobs: js, cancel: cancel, done: make(chan struct{}), printed: make(chan struct{}), told: time.Now()}
	js.jobs = append(js.jobs, j)
	js.mu.Unlock()
	js.notify(JobEvent{Job: j}) // before the call that starts it returns
	go func() {
		exit, err := run(withJob(ctx, j), j)
		j.mu.Lock()
		j.exit, j.err, j.ended = exit, err, time.Now()
		if ctx.Err() != nil {
			j.err = errStopped
		}
		j.mu.Unlock()
		close(j.done)
		js.notify(JobEvent{Job: j, Ended: true})
	}()
	return j
}

var errStopped = errors.New("stopped")

// Running reports whether the job has not ended.
func (j *Job) Running() bool {
	select {
	case <-j.done:
		return false
	default:
		return true
	}
}

// Wait waits up to d for the job to end or to print something.
func (j *Job) Wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.printed:
	case <-j.done:
	case <-t.C:
	}
}

// State is the job in a word: running, exited N, stopped, failed.
func (j *Job) State() string {
	if j.Running() {
		j.jobs.mu.Lock()
		frozen := j.jobs.frozen
		j.jobs.mu.Unlock()
		if frozen {
			return "paused (plan mode)"
		}
		if serves := j.servesLine(); serves != "" {
			return "running · " + serves
		}
		return "running"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case errors.Is(j.err, errStopped):
		return "stopped"
	case j.err != nil:
		return "failed: " + j.err.Error()
	}
	return fmt.Sprintf("exited %d", j.exit)
}

// For is how long the job has run (until it ended).
func (j *Job) For() time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.ended.IsZero() {
		return j.ended.Sub(j.Started)
	}
	return time.Since(j.Started)
}

// Tail is the last n lines of what the job printed.
func (j *Job) Tail(n int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(j.ring), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// unread is what the agent has not read, at most max bytes (the newest),
// and moves the mark.
func (j *Job) unread(max int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	start := j.total - int64(len(j.ring)) // the offset of ring[0]
	var lost int64
	if j.read < start {
		lost, j.read = start-j.read, start
	}
	out := j.ring[j.read-start:]
	if len(out) > max {
		lost += int64(len(out) - max)
		out = out[len(out)-max:]
	}
	j.read = j.total
	s := string(out)
	if lost > 0 {
		s = fmt.Sprintf("[… %d bytes not shown …]\n", lost) + s
	}
	return s
}

// Get finds a job by id.
func (js *Jobs) Get(id int) (*Job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.jobs {
		if j.ID == id {
			return j, true
		}
	}
	return nil, false
}

// All are the jobs, oldest first.
func (js *Jobs) All() []*Job {
	if js == nil {
		return nil
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	return slices.Clone(js.jobs)
}

// Count is how many jobs run now.
func (js *Jobs) Count() int {
	n := 0
	for _, j := range js.All() {
		if j.Running() {
			n++
		}
	}
	return n
}

// Stop ends a job (its whole process group) and waits for it.
func (js *Jobs) Stop(id int) error {
	j, ok := js.Get(id)
	if !ok {
		return fmt.Errorf("no job %d", id)
	}
	if !j.Running() {
		return fmt.Errorf("job %d has already ended (%s)", id, j.State())
	}
	j.cancel()
	<-j.done
	return nil
}

// StopAll ends every running job and says how many there were.
func (js *Jobs) StopAll() int {
	n := 0
	for _, j := range js.All() {
		if j.Running() {
			j.cancel()
			<-j.done
			n++
		}
	}
	return n
}

// endedNotes says which jobs ended since the agent was last told, once.
func (js *Jobs) endedNotes() string {
	var notes []string
	for _, j := range js.All() {
		if j.Running() {
			continue
		}
		j.mu.Lock()
		told := j.stated
		j.stated = true
		j.mu.Unlock()
		if !told {
			notes = append(notes, fmt.Sprintf("[background job %d (%s) ended: %s after %s]", j.ID, clipCommand(j.Command), j.State(), j.For().Round(time.Second)))
		}
	}
	return strings.Join(notes, "\n")
}

func clipCommand(c string) string { return clip.String(strings.Join(strings.Fields(c), " "), 60) }

// withJobNotes adds to a result what the agent must learn of its jobs.
func (js *Jobs) withJobNotes(result string) string {
	if js == nil {
		return result
	}
	if n := js.endedNotes(); n != "" {
		return result + "\n" + n
	}
	return result
}
