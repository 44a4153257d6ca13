package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
)

// acpStep is one line the driver prints.
type acpStep struct {
	Step       string            `json:"step"`
	StopReason string            `json:"stopReason"`
	Text       string            `json:"text"`
	User       string            `json:"user"`
	Ms         int               `json:"ms"`
	Error      string            `json:"error"`
	Title      string            `json:"title"`
	ToolCallID string            `json:"toolCallId"`
	Answer     string            `json:"answer"`
	Options    []json.RawMessage `json:"options"`
	Usage      *struct {
		TotalTokens int `json:"totalTokens"`
	} `json:"usage"`
	Meta    json.RawMessage   `json:"meta"`
	Init    json.RawMessage   `json:"init"`
	Modes   json.RawMessage   `json:"modes"`
	Ack     json.RawMessage   `json:"ack"`
	Updates []json.RawMessage `json:"updates"`
	Raw     string            `json:"-"`
}

// acpDriver is testdata/acp/drive.mjs, or a skip where node is missing.
func acpDriver(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the ACP end-to-end test drives chat acp with the TypeScript client library")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "acp"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		// A plain go test on a clean clone has not run npm ci; make test
		// has, and says so, so there the test never skips silently.
		why := fmt.Sprintf("the ACP client library is not installed (npm ci --prefix testdata/acp, which make test runs): %v", err)
		if os.Getenv("CHAT_ACP_CLIENT_INSTALLED") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	return filepath.Join(dir, "drive.mjs")
}

// TestACPWithTheTypeScriptClient drives chat acp the way an editor does,
// with the official client library: initialize, a new session, a streamed
// answer, a write rejected then allowed, text steered into a running turn,
// a prompt queued behind another, a cancel during a hanging stream, a
// mode switch, a /-command, and the session loaded again in a new process.
func TestACPWithTheTypeScriptClient(t *testing.T) {
	t.Parallel()
	driver := acpDriver(t)
	steerGate, queueGate, hangGate := oaitest.NewGate(), oaitest.NewGate(), oaitest.NewGate()
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return oaitest.Answer{Text: "the tool said: " + strings.TrimSpace(last.Text())}
		}
		switch u := last.Text(); {
		case strings.HasSuffix(u, "hello there"):
			// Paced as a model is: the chunks are not all waiting at once.
			return oaitest.Answer{Text: "Hello from the scripted model, in pieces.", Reasoning: "a greeting", Delay: 20 * time.Millisecond}
		case strings.Contains(u, "write the note"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("call_w%d", req.Index), Name: "write_file", Args: `{"path":"note.txt","content":"from the model\n"}`}}}
		case strings.HasSuffix(u, "think slowly"):
			return oaitest.Answer{Text: "thinking about it", Gate: steerGate, GateAfter: 1}
		case strings.HasSuffix(u, "also mention bananas"):
			return oaitest.Answer{Text: "bananas noted"}
		case strings.HasSuffix(u, "first of two"):
			return oaitest.Answer{Text: "first answer", Gate: queueGate, GateAfter: 1}
		case strings.HasSuffix(u, "second of two"):
			return oaitest.Answer{Text: "second answer"}
		case strings.HasSuffix(u, "hang please"):
			return oaitest.Answer{Text: "this stream hangs", Gate: hangGate, GateAfter: 1}
		case strings.HasSuffix(u, "touch the file"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprintf("call_t%d", req.Index), Name: "run_shell", Args: `{"command":"touch ro.txt"}`}}}
		}
		return oaitest.Answer{Text: "still here"}
	})
	base := command(t, srv)
	work := base.Dir
	cmd := exec.Command("node", driver)
	cmd.Dir = work
	cmd.Env = append(base.Env, "CHAT_BIN="+chatBin, "ACP_CWD="+work)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	steps := map[string]acpStep{}
	var order []string
	hangup := make(chan time.Duration, 1)
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		var s acpStep
		if err := json.Unmarshal(lines.Bytes(), &s); err != nil {
			t.Fatalf("driver printed %q: %v", lines.Text(), err)
		}
		s.Raw = lines.Text()
		if s.Step == "permission" {
			s.Step += " " + s.Answer
		}
		steps[s.Step] = s
		order = append(order, s.Step)
		switch s.Step {
		case "steered":
			steerGate.Release()
		case "queued-sent":
			queueGate.Release()
		case "cancelling":
			go func(at time.Time) {
				select {
				case <-srv.Hangups():
					hangup <- time.Since(at)
				case <-time.After(30 * time.Second):
					close(hangup)
				}
			}(time.Now())
		}
	}
	werr := cmd.Wait()
	if e, ok := steps["error"]; ok || werr != nil {
		t.Fatalf("driver failed (%v): %s\n%s\nsteps: %v", werr, e.Error, stderr.String(), order)
	}
	if _, ok := steps["done"]; !ok {
		t.Fatalf("the driver stopped early; steps: %v\n%s", order, stderr.String())
	}

	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				Image, EmbeddedContext bool
			} `json:"promptCapabilities"`
			Meta map[string]map[string]json.RawMessage `json:"_meta"`
		} `json:"agentCapabilities"`
		AgentInfo struct{ Name string } `json:"agentInfo"`
	}
	if err := json.Unmarshal(steps["initialize"].Init, &init); err != nil {
		t.Fatal(err)
	}
	caps := init.AgentCapabilities
	if init.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext ||
		init.AgentInfo.Name != "chat" || !strings.Contains(string(caps.Meta["chat"]["steer"]), "_chat/steer") {
		t.Errorf("initialize: %s", steps["initialize"].Raw)
	}
	if s := steps["new"]; !strings.Contains(s.Raw, `"name":"compact"`) || !strings.Contains(s.Raw, `"name":"context"`) {
		t.Errorf("the session's commands: %s", s.Raw)
	}

	hello := steps["hello"]
	if hello.StopReason != "end_turn" || hello.Text != "Hello from the scripted model, in pieces." || hello.Usage == nil || hello.Usage.TotalTokens == 0 {
		t.Errorf("hello: %s", hello.Raw)
	}
	if chunks := countUpdates(hello.Updates, "agent_message_chunk"); chunks < 2 {
		t.Errorf("the answer came in %d chunk(s), not streamed: %s", chunks, hello.Raw)
	}
	if countUpdates(hello.Updates, "agent_thought_chunk") == 0 {
		t.Errorf("the reasoning did not come as thought chunks: %s", hello.Raw)
	}

	// Rejected: no file, the call failed; allowed: the file, completed,
	// with its location and diff shown on the call.
	rejected, allowed := steps["write-rejected"], steps["write-allowed"]
	if _, ok := steps["permission reject_once"]; !ok {
		t.Fatalf("no permission request was rejected; steps: %v", order)
	}
	if p := steps["permission allow_once"]; !strings.Contains(p.Title, "note.txt") || len(p.Options) < 2 {
		t.Errorf("the permission request: %s", p.Raw)
	}
	if !strings.Contains(rejected.Raw, `"status":"failed"`) || !strings.Contains(rejected.Text, "declined") {
		t.Errorf("the rejected write: %s", rejected.Raw)
	}
	if got, err := os.ReadFile(filepath.Join(work, "note.txt")); err != nil || string(got) != "from the model\n" {
		t.Errorf("note.txt after the allowed write: %q, %v", got, err)
	}
	for _, want := range []string{`"kind":"edit"`, `"type":"diff"`, `"newText":"from the model\n"`, `"path":"` + filepath.Join(work, "note.txt") + `"`, `"status":"completed"`} {
		if !strings.Contains(allowed.Raw, want) {
			t.Errorf("the allowed write has no %s: %s", want, allowed.Raw)
		}
	}

	// Steered text reached the model in the same turn.
	if s := steps["steer"]; s.StopReason != "end_turn" || !strings.Contains(s.Text, "bananas noted") || !strings.Contains(s.Raw, "also mention bananas") {
		t.Errorf("steer: %s\n%s", s.Raw, steps["steered"].Raw)
	}
	steeredInto := false
	for _, r := range srv.Requests() {
		if lastUserOf(r) == "also mention bananas" && strings.Contains(r.Shape(), "user assistant user") {
			steeredInto = true
		}
	}
	if !steeredInto {
		t.Errorf("no request carried the steered text after the turn's answer")
	}

	// Queued: both answered, in order, each its own message.
	if a, b := steps["queued-first"], steps["queued-second"]; a.Text != "first answer" || !strings.HasSuffix(b.Text, "second answer") || a.StopReason != "end_turn" || b.StopReason != "end_turn" {
		t.Errorf("queued prompts: %s\n%s", a.Raw, b.Raw)
	}
	for _, r := range srv.Requests() {
		if lastUserOf(r) == "second of two" {
			if n := len(r.Messages); n < 3 || r.Messages[n-2].Text() != "first answer" {
				t.Errorf("the second prompt did not follow the first's answer: %s", r.Shape())
			}
		}
	}

	// Cancel: the stream closed, the prompt answered cancelled, and the
	// next prompt went through a strict server.
	if s := steps["cancelled"]; s.StopReason != "cancelled" {
		t.Errorf("cancel: %s", s.Raw)
	}
	if d, ok := <-hangup; !ok {
		t.Errorf("the hanging stream was not closed after session/cancel")
	} else {
		t.Logf("stream closed %v after session/cancel; the prompt answered in %d ms", d, steps["cancelled"].Ms)
	}
	if s := steps["after-cancel"]; s.StopReason != "end_turn" || s.Text != "still here" {
		t.Errorf("after the cancel: %s", s.Raw)
	}

	if s, ok := steps["read-only"]; ok {
		_, asked := steps["permission reject"] // the driver's answer when none was queued
		if !strings.Contains(s.Raw, `"kind":"execute"`) || !strings.Contains(s.Raw, "ro.txt") || asked {
			t.Errorf("the command in read-only mode: %s", s.Raw)
		}
		t.Logf("read-only: %s", s.Text)
		if fileExists(filepath.Join(work, "ro.txt")) {
			t.Errorf("in read-only mode a command wrote ro.txt: %s", s.Raw)
		}
	} else if needsBox := strings.Contains(steps["new"].Raw, "read-only"); needsBox {
		t.Errorf("read-only was offered but not tried")
	}
	if s := steps["context"]; !strings.Contains(s.Text, "context: ~") {
		t.Errorf("/context: %s", s.Raw)
	}

	// Loaded in a new process: the conversation replayed, then a turn.
	load := steps["load"]
	for _, want := range []string{"hello there", "write the note", "also mention bananas"} {
		if !strings.Contains(load.User, want) {
			t.Errorf("the replay has no user message %q: %s", want, load.User)
		}
	}
	if !strings.Contains(load.Text, "Hello from the scripted model") || !strings.Contains(load.Raw, `"sessionUpdate":"tool_call"`) {
		t.Errorf("the replay: %s", load.Raw)
	}
	if s := steps["after-load"]; s.StopReason != "end_turn" {
		t.Errorf("after load: %s", s.Raw)
	}
	if rej := srv.Rejected(); len(rej) > 0 {
		t.Errorf("strict server refused: %v", rej)
	}
	t.Logf("steps: %v", order)
}

func countUpdates(updates []json.RawMessage, kind string) int {
	n := 0
	for _, u := range updates {
		if strings.Contains(string(u), `"sessionUpdate":"`+kind+`"`) {
			n++
		}
	}
	return n
}
