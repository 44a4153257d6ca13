package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// firstOutputWait is how long starting a job waits for its first output
// (or its end) before the call returns.
const firstOutputWait = 500 * time.Millisecond

// startJob runs a run_shell command in the background: in the box the
// command would have run in, its output into the job's ring.
func (s RunShell) startJob(ctx context.Context, a shellArgs) (string, error) {
	if s.Jobs == nil {
		return "", errors.New("background jobs are not available here; run the command without background")
	}
	boxed := s.Shell.Boxed()
	if r, ok := Reviewed(ctx); ok {
		boxed = r.Confined
	}
	j := s.Jobs.Start(a.Command, CallIDOf(ctx), func(ctx context.Context, out io.Writer) (int, error) {
		if boxed {
			return s.runBoxed(ctx, a.Command, out)
		}
		return s.runDirect(ctx, a.Command, out)
	})
	j.Wait(firstOutputWait)
	first := j.unread(s.maxOutput())
	if first == "" {
		first = "(no output yet)\n"
	}
	return s.withNotes(fmt.Sprintf("started background job %d (%s); its first output:\n%s[job %d: %s; job_output reads more, job_stop ends it]",
		j.ID, clipCommand(a.Command), first, j.ID, j.State())), nil
}

// JobOutput is the job_output tool.
type JobOutput struct {
	described[jobOutputName]
	Unreviewed
	Jobs *Jobs
}

// JobStop is the job_stop tool.
type JobStop struct {
	described[jobStopName]
	Unreviewed
	Jobs *Jobs
}

type (
	jobOutputName struct{}
	jobStopName   struct{}
)

func (jobOutputName) toolName() string { return "job_output" }
func (jobStopName) toolName() string   { return "job_stop" }

type jobArgs struct {
	ID       int `json:"id"`
	MaxBytes int `json:"max_bytes"`
}

// Run implements Tool.
func (t JobOutput) Run(_ context.Context, raw json.RawMessage) (string, error) {
	var a jobArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	j, ok := t.Jobs.Get(a.ID)
	if !ok {
		return "", fmt.Errorf("no job %d", a.ID)
	}
	max := a.MaxBytes
	if max <= 0 || max > 64<<10 {
		max = 16 << 10
	}
	out := j.unread(max)
	if out == "" {
		out = "(nothing new)\n"
	}
	return t.Jobs.withJobNotes(fmt.Sprintf("%s[job %d: %s, for %s]", out, j.ID, j.State(), j.For().Round(time.Second))), nil
}

// Run implements Tool.
func (t JobStop) Run(_ context.Context, raw json.RawMessage) (string, error) {
	var a jobArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	if err := t.Jobs.Stop(a.ID); err != nil {
		return "", err
	}
	return t.Jobs.withJobNotes(fmt.Sprintf("job %d stopped", a.ID)), nil
}
