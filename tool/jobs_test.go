package tool

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestJobOutputIsBounded: a job printing 100 MB keeps at most JobRing
// bytes; the reader gets the newest part and is told how much it missed.
func TestJobOutputIsBounded(t *testing.T) {
	t.Parallel()
	js := &Jobs{}
	j := js.Start("flood", "", func(ctx context.Context, out io.Writer) (int, error) {
		chunk := []byte(strings.Repeat("x", 32<<10-1) + "\n")
		for i := 0; i < 100<<20/len(chunk); i++ {
			if _, err := out.Write(chunk); err != nil {
				return 1, err
			}
		}
		_, _ = out.Write([]byte("the end\n"))
		return 0, nil
	})
	<-j.done
	if len(j.ring) > JobRing || j.total < 100<<20 {
		t.Fatalf("ring %d bytes of %d written", len(j.ring), j.total)
	}
	got := j.unread(16 << 10)
	if !strings.HasPrefix(got, "[… ") || !strings.HasSuffix(got, "the end\n") || len(got) > 16<<10+64 {
		t.Fatalf("read %d bytes: %q…", len(got), got[:min(len(got), 60)])
	}
	if again := j.unread(16 << 10); again != "" {
		t.Fatalf("read twice: %q", again)
	}
	if j.State() != "exited 0" {
		t.Fatal(j.State())
	}
}

// TestJobsRunAndStop: run_shell with background returns at once with the
// first output and an id; job_output reads what came since; job_stop ends
// it and every process it started; the agent learns of a job that ended
// with its next result, once.
func TestJobsRunAndStop(t *testing.T) {
	t.Parallel()
	js := &Jobs{}
	set := Rules{Policy: &Policy{AllowAll: true}}.Set(Builtins(Workspace{Root: t.TempDir(), Jobs: js})...)
	ctx := context.Background()
	start := time.Now()
	r := set.Dispatch(ctx, "run_shell", `{"command":"echo first; sleep 0.3; echo second; sleep 300","background":true}`)
	if r.Err != nil || !strings.Contains(r.Content, "started background job 1") || !strings.Contains(r.Content, "first") || time.Since(start) > 30*time.Second {
		t.Fatalf("%+v", r)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r = set.Dispatch(ctx, "job_output", `{"id":1}`)
		if strings.Contains(r.Content, "second") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(r.Content, "second") || strings.Contains(r.Content, "first") || !strings.Contains(r.Content, "running") {
		t.Fatalf("job_output: %q", r.Content)
	}
	quick := set.Dispatch(ctx, "run_shell", `{"command":"true","background":true}`)
	if quick.Err != nil {
		t.Fatal(quick.Err)
	}
	if r = set.Dispatch(ctx, "job_stop", `{"id":1}`); r.Err != nil || !strings.Contains(r.Content, "job 1 stopped") {
		t.Fatalf("job_stop: %+v", r)
	}
	if js.Count() != 0 {
		t.Fatalf("%d jobs still run", js.Count())
	}
	next := set.Dispatch(ctx, "run_shell", `{"command":"echo next"}`)
	all := r.Content + quick.Content + next.Content
	if strings.Count(all, "background job 2 (true) ended: exited 0") != 1 {
		t.Fatalf("the quick job's end was not told exactly once:\n%s", all)
	}
	if r = set.Dispatch(ctx, "job_output", `{"id":9}`); r.Err == nil {
		t.Fatal("a job that does not exist")
	}
	var args struct{ Properties map[string]any }
	_ = json.Unmarshal(RunShell{}.Parameters(), &args)
	if _, ok := args.Properties["background"]; !ok {
		t.Fatal("run_shell does not offer background")
	}
}
