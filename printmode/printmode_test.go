package printmode

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/app"
	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oaitest"
)

// printRun is one print-mode run against srv in a home of its own, with
// the sandbox off (the box has suites of its own); sig is its SIGINT.
type printRun struct {
	Options
	out, errOut bytes.Buffer
	sig         chan os.Signal
}

func newRun(t *testing.T, srv *oaitest.Server, prompt string) *printRun {
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_DATA_HOME": filepath.Join(home, "data")}
	cfg := config.Config{BaseURL: srv.BaseURL(), Model: "scripted-model", Sources: map[string]string{}}
	cfg.Sandbox.Mode = "off"
	r := &printRun{sig: make(chan os.Signal, 1)}
	env := app.Env{Workdir: t.TempDir(), Getenv: func(k string) string { return vars[k] }, Environ: os.Environ, Stderr: &r.errOut}
	r.Options = Options{Spec: app.Spec{Config: cfg, Env: env, IfBusy: "new"}, Prompt: prompt, Stdout: &r.out, Stderr: &r.errOut,
		Signals: func() (<-chan os.Signal, func()) { return r.sig, func() {} },
		Exit:    func(code int) { t.Errorf("the shutdown hung (exit %d)", code) }}
	return r
}

// TestAnswersWithThePipedInput: -p and a piped stdin are one question;
// the answer goes to stdout (as JSON lines with JSON).
func TestAnswersWithThePipedInput(t *testing.T) {
	srv := oaitest.New(t, oaitest.Answer{Text: "a commit message"})
	r := newRun(t, srv, "write a commit message")
	r.Stdin = strings.NewReader("diff --git a/x b/x\n")
	r.JSON = true
	if err := Run(context.Background(), r.Options); err != nil {
		t.Fatalf("Run: %v\n%s", err, r.errOut.String())
	}
	if got := r.out.String(); !strings.Contains(got, `{"type":"assistant","turn":1,"text":"a commit message"`) {
		t.Fatalf("stdout: %q", got)
	}
	if got := srv.Requests()[0].Messages[len(srv.Requests()[0].Messages)-1].Text(); got != "write a commit message\n\ndiff --git a/x b/x" {
		t.Fatalf("asked %q", got)
	}
}

// TestNothingToAskAsksNothing: no prompt and an empty stdin is an error
// before any request.
func TestNothingToAskAsksNothing(t *testing.T) {
	srv := oaitest.New(t)
	r := newRun(t, srv, "  ")
	r.Stdin = strings.NewReader("\n")
	if err := Run(context.Background(), r.Options); !errors.Is(err, errNothingToAsk) {
		t.Fatalf("Run: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
}

// TestSchema: an answer that matches is printed as JSON; one that does
// not is not lost (stderr) and the run fails saying what to try.
func TestSchema(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := oaitest.New(t, oaitest.Answer{Text: `{"n": 7}`}, oaitest.Answer{Text: "seven"})
	r := newRun(t, srv, "how many?")
	r.Schema = schema
	if err := Run(context.Background(), r.Options); err != nil {
		t.Fatalf("Run: %v\n%s", err, r.errOut.String())
	}
	if got := strings.TrimSpace(r.out.String()); got != "{\n  \"n\": 7\n}" {
		t.Fatalf("stdout: %q", got)
	}
	r = newRun(t, srv, "how many?")
	r.Schema = schema
	err := Run(context.Background(), r.Options)
	if err == nil || !strings.Contains(err.Error(), "try again") || !strings.Contains(r.errOut.String(), "seven") {
		t.Fatalf("Run: %v; stderr %q", err, r.errOut.String())
	}
}

// TestInterruptedIs130: a SIGINT during the stream ends the run with 130,
// the model's stream closed.
func TestInterruptedIs130(t *testing.T) {
	gate := oaitest.NewGate()
	srv := oaitest.New(t, oaitest.Answer{Text: "a long answer that never ends", Gate: gate, GateAfter: 1})
	r := newRun(t, srv, "talk")
	go func() {
		<-gate.Entered()
		r.sig <- syscall.SIGINT
	}()
	if err := Run(context.Background(), r.Options); !errors.Is(err, ExitCode(130)) {
		t.Fatalf("Run: %v\n%s", err, r.errOut.String())
	}
}

// TestGoNeedsASessionThatPlanned: --go on a session that never planned is
// refused before anything is asked.
func TestGoNeedsASessionThatPlanned(t *testing.T) {
	srv := oaitest.New(t)
	r := newRun(t, srv, "")
	r.Go = true
	if err := Run(context.Background(), r.Options); err == nil || !strings.Contains(err.Error(), "plan mode") {
		t.Fatalf("Run: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
}
