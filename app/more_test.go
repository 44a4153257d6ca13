package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/session"
)

// noise writes a file of incompressible bytes each call.
type noise struct {
	stub
	dir string
	n   *atomic.Int32
}

func (w noise) Run(context.Context, json.RawMessage) (string, error) {
	b := make([]byte, 700<<10)
	_, _ = rand.Read(b)
	return "ok", os.WriteFile(filepath.Join(w.dir, fmt.Sprintf("noise-%d.bin", w.n.Add(1))), b, 0o644)
}

// TestCheckpointNotesWaitForRewind: what checkpoints have to say (the
// oldest pruned past the size bound) is held for /rewind while the run
// is on screen, never written under it.
func TestCheckpointNotesWaitForRewind(t *testing.T) {
	call := oaitest.Answer{Calls: []oaitest.Call{{ID: "n", Name: "noise", Args: "{}"}}}
	srv := oaitest.New(t, call, oaitest.Answer{Text: "one"}, call, oaitest.Answer{Text: "two"}, call, oaitest.Answer{Text: "three"})
	m := newMachine(t)
	spec := m.spec(srv)
	spec.Config.Checkpoints.MaxSizeMB = 1
	r := open(t, spec)
	defer r.Close()
	r.OnScreen(func(string) {})
	r.agent.Tools().Add(noise{stub{name: "noise"}, m.env.Workdir, &atomic.Int32{}})
	ask(t, r, "one", "two", "three")
	turns, err := r.Rewinder().Turns()
	if err != nil || !strings.Contains(turns, "note: checkpoints passed 1 MiB") {
		t.Fatalf("%v\n%s", err, turns)
	}
	if m.stderr.Len() != 0 {
		t.Fatalf("written under the screen: %q", m.stderr.String())
	}
}

// TestTranscripts: a saved session as text and as Markdown, every kind of
// message, control bytes inert in the text form.
func TestTranscripts(t *testing.T) {
	call := session.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}
	bad := session.ToolCall{ID: "c2", Name: "run_shell", Arguments: `{"command":"x"}`}
	synth := session.Assistant("synthesized answer")
	synth.Synthesized = true
	cut := session.Assistant("half an answer")
	cut.Interrupted = true
	rewound := session.User("taken back")
	rewound.Rewound = true
	l := session.Loaded{Header: session.Header{ID: "0199abcd", Dir: "/w", Created: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)},
		Messages: []session.Message{
			session.System("be brief"),
			session.User("look \x1b]0;pwned\x07", session.FilePart{Filename: "p.png", MediaType: "image/png", Data: []byte{1, 2}}),
			session.Assistant("", call, bad), session.ToolResult(call, "contents"), session.ToolError(bad, "Error: no\nmore", "execution_error"),
			session.Summary("what happened", session.Compaction{Messages: 4, Before: 900, After: 100, Cut: true, Instructions: "keep names"}),
			session.Summary("", session.Compaction{Messages: 2, Dropped: true}),
			synth, cut,
		}, Rewound: []session.Message{rewound}}
	var text, md bytes.Buffer
	WriteTranscript(&text, session.WithRewound(l.Messages, l.Rewound))
	WriteMarkdown(&md, l)
	for _, want := range []string{"[system] be brief", "› look ", "[attached: p.png (image/png, 2 bytes)]", "→ read_file", "✓ 8 bytes",
		"✗ Error: no …", "the summary was cut to fit; asked to: keep names", "left out of what is sent from here on",
		"(synthesized) synthesized answer", "(interrupted) half an answer", "[rewound: not sent again]"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "\x1b") {
		t.Error("an escape sequence reached the text transcript")
	}
	for _, want := range []string{"# Session 0199abcd", "## System", "## User", "_attached: p.png", "**Tool call** `read_file`",
		"**Tool result** `read_file`", "## Compacted", "## Assistant"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestAQuestionLeftUnansweredComesBack: a question the server refused is
// kept unanswered and, when the session is continued, goes back into the
// input; the run lists files and skills and the server's models.
func TestAQuestionLeftUnansweredComesBack(t *testing.T) {
	srv := oaitest.New(t, oaitest.Fail{Status: 400, Message: "bad request"})
	srv.SetModels("scripted-model", "other")
	m := newMachine(t)
	m.file(t, ".chat/skills/release/SKILL.md", "---\nname: release\ndescription: how to release\n---\nSteps.\n")
	m.file(t, "src/main.go", "package main\n")
	spec := m.spec(srv)
	r := open(t, spec)
	if _, err := r.agent.Run(context.Background(), "the lost question"); err == nil {
		t.Fatal("the refusal was not an error")
	}
	if skills := r.Skills(); len(skills) != 1 || skills[0].Name != "release" {
		t.Fatalf("skills %+v", skills)
	}
	files, err := r.Files(0)
	if err != nil || !strings.Contains(strings.Join(files, " "), "src/main.go") {
		t.Fatalf("files %v %v", files, err)
	}
	if models, err := r.Models(context.Background()); err != nil || len(models) != 2 {
		t.Fatalf("models %v %v", models, err)
	}
	if r.Price() == nil || r.HasMCP() {
		t.Fatal("price, mcp")
	}
	r.StartBox()
	r.Close()
	spec.Continue = true
	again := open(t, spec)
	defer again.Close()
	if d := again.Draft(); d != "the lost question" {
		t.Fatalf("draft %q", d)
	}
}
