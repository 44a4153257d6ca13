package listener

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/chatrepl/chat/internal/clip"
)

// Terminal writes a turn as plain text: the answer streams to Out, and
// everything about the answer (tool calls, retries, notices, errors, and the
// reasoning when ShowThinking is set) goes to Diag, so `chat -p … > file`
// captures only the answer. Text is sanitized: a model cannot send escape
// sequences through it. Sub-agents are indented one level more.
type Terminal struct {
	shared *terminalShared
	indent string
	// The synthesizer speaks for its parent: its answer is the turn's answer
	// and is not indented, its notices are.
	answerIndent string
	// sub is the id of a sub-agent (not a synthesizer): its answer is a
	// tool result of its caller, so it goes to diag as one line, not to
	// the answer stream.
	sub string

	answer, thinking Sanitizer
	atLineStart      bool
	streamed         bool
	// window is the model's context window once known; cutOff is an answer
	// cut at finish_reason "length", said once its usage shows why.
	window int
	cutOff bool
}

type terminalShared struct {
	mu           sync.Mutex
	out, diag    io.Writer
	showThinking bool
	lastOut      byte
	// verdicts are the language servers' words on a call's files, by
	// call id, held until its result is said.
	verdicts map[string]string
}

// NewTerminal writes answers to out and diagnostics to diag.
func NewTerminal(out, diag io.Writer, showThinking bool) *Terminal {
	return &Terminal{
		shared:      &terminalShared{out: out, diag: diag, showThinking: showThinking, lastOut: '\n'},
		atLineStart: true,
	}
}

// ForSubAgent implements Forker.
func (t *Terminal) ForSubAgent(id string) Listener {
	child := &Terminal{shared: t.shared, indent: t.indent + "  ", answerIndent: t.answerIndent + "  ", atLineStart: true}
	if id == SynthesizerID(t.sub) {
		child.answerIndent = t.answerIndent
		child.sub = t.sub
	} else {
		child.sub = id
	}
	return child
}

// OnEvent implements Listener.
func (t *Terminal) OnEvent(e Event) {
	s := t.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.sub != "" && t.onSubAgent(e) {
		return
	}
	switch e := e.(type) {
	case AssistantDelta:
		t.streamed = true
		t.writeAnswer(t.answer.Clean(e.Text))
	case Assistant:
		if !t.streamed && e.Text != "" {
			t.writeAnswer(String(e.Text))
		}
		t.streamed = false
		if e.Finish == "length" && len(e.ToolCalls) == 0 {
			t.endAnswerLine()
			t.cutOff = true // said at its Usage, which says which limit it was
		}
	case ContextCap:
		t.window = e.Tokens
	case ThinkingDelta:
		if s.showThinking {
			fmt.Fprint(s.diag, t.thinking.Clean(e.Text))
		}
	case Thinking:
		if s.showThinking && e.Text != "" {
			fmt.Fprintln(s.diag)
		}
	case ToolCall:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s→ %s %s\n", t.indent, oneLine(String(e.Name), 80), oneLine(String(e.Arguments), 200))
	case ToolOutput:
		if s.showThinking { // -v: a command's output as it runs
			fmt.Fprint(s.diag, String(e.Text))
		}
	case ToolResult:
		if e.Err != nil {
			fmt.Fprintf(s.diag, "%s  ✗ %s\n", t.indent, oneLine(String(e.Err.Error()), 200))
		} else {
			fmt.Fprintf(s.diag, "%s  ✓ %d bytes\n", t.indent, len(e.Content))
		}
		if text, ok := s.verdicts[e.ID]; ok {
			delete(s.verdicts, e.ID)
			for _, line := range strings.Split(text, "\n") {
				fmt.Fprintf(s.diag, "%s    %s\n", t.indent, line)
			}
		}
	case Compacted:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s%s\n", t.indent, CompactedText(e))
	case Retry:
		fmt.Fprintf(s.diag, "%s… retrying in %s (attempt %d): %s\n", t.indent, e.Wait.Round(100e6), e.Attempt, oneLine(String(e.Err.Error()), 300))
	case Rescued:
		if s.showThinking {
			t.endAnswerLine()
			fmt.Fprintf(s.diag, "%s↻ %s\n", t.indent, RescuedText(e))
		}
	case Notice:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s%s\n", t.indent, oneLine(String(e.Text), 500))
	case Plan:
		// Each change of the list, on the diagnostics stream: the answer
		// stays clean for a pipe.
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s%s\n", t.indent, strings.ReplaceAll(PlanText(e.Steps), "\n", "\n"+t.indent))
	case Network:
		if !e.Allowed {
			t.endAnswerLine()
			fmt.Fprintf(s.diag, "%s%s\n", t.indent, oneLine(String(e.Refusal()), 500))
		}
	case Diagnostics:
		// Said under the call's result, which comes next.
		if text := DiagnosticsText(e); text != "" {
			if s.verdicts == nil {
				s.verdicts = map[string]string{}
			}
			s.verdicts[e.CallID] = String(text)
		}
	case DiagnosticsDelta:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%sdiagnostics: %s\n", t.indent, e.DeltaText())
	case Job:
		if e.Ended {
			t.endAnswerLine()
			fmt.Fprintf(s.diag, "%sbackground job %d ended: %s\n", t.indent, e.ID, e.State)
		}
	case FallbackNotice:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s! %s\n", t.indent, e.Reason)
	case Cancelled:
		t.endAnswerLine()
		reason := e.Reason
		if reason == "" {
			reason = "cancelled"
		}
		fmt.Fprintf(s.diag, "%s⏹ %s\n", t.indent, reason)
	case Error:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%serror: %s\n", t.indent, String(e.Err.Error()))
	case Usage:
		if s.showThinking { // -v: the token line follows on stderr, on a line of its own
			t.endAnswerLine()
		}
		t.sayCut(e.Total)
	case TurnDone:
		t.sayCut(0)
		t.endAnswerLine()
	}
}

// WindowFilled reports whether an answer cut at finish_reason "length"
// was cut by the context window rather than the output limit: the
// request and the answer (total tokens) filled the window (0: unknown).
func WindowFilled(total, window int) bool { return window > 0 && total >= window*95/100 }

// sayCut says, once, that the answer was cut, and by which limit: the
// context window when the request and answer filled it (total tokens),
// else the output limit.
func (t *Terminal) sayCut(total int) {
	if !t.cutOff {
		return
	}
	t.cutOff = false
	if WindowFilled(total, t.window) {
		fmt.Fprintf(t.shared.diag, "%s! the answer was cut off: the context window is full (%d of %d tokens); a new session, or compacting the conversation, makes room\n", t.indent, total, t.window)
		return
	}
	fmt.Fprintf(t.shared.diag, "%s! the answer was cut off: the model reached its output limit (finish_reason \"length\"); a larger max_tokens, or asking it to go on, gets the rest\n", t.indent)
}

func (t *Terminal) writeAnswer(text string) {
	if text == "" {
		return
	}
	s := t.shared
	if t.answerIndent != "" {
		var b strings.Builder
		for _, line := range strings.SplitAfter(text, "\n") {
			if line == "" {
				continue
			}
			if t.atLineStart {
				b.WriteString(t.answerIndent)
			}
			b.WriteString(line)
			t.atLineStart = strings.HasSuffix(line, "\n")
		}
		text = b.String()
	}
	io.WriteString(s.out, text)
	s.lastOut = text[len(text)-1]
}

// endAnswerLine keeps a notice from starting in the middle of answer text.
// onSubAgent shows what a sub-agent says as diagnostics: its task, and its
// answer on one line (all of it with ShowThinking). It reports whether it
// handled e.
func (t *Terminal) onSubAgent(e Event) bool {
	s := t.shared
	switch e := e.(type) {
	case UserTurn:
		t.endAnswerLine()
		fmt.Fprintf(s.diag, "%s⤷ %s: %s\n", t.indent, oneLine(String(t.sub), 40), oneLine(String(e.Content), 200))
	case AssistantDelta:
	case Assistant:
		if e.Text == "" || len(e.ToolCalls) > 0 {
			return true
		}
		text := oneLine(String(e.Text), 200)
		if s.showThinking {
			text = String(e.Text)
		}
		fmt.Fprintf(s.diag, "%s⤶ %s answered: %s\n", t.indent, oneLine(String(t.sub), 40), text)
	default:
		return false
	}
	return true
}

func (t *Terminal) endAnswerLine() {
	if t.shared.lastOut != '\n' {
		io.WriteString(t.shared.out, "\n")
		t.shared.lastOut = '\n'
		t.atLineStart = true
	}
}

func oneLine(s string, max int) string {
	return clip.String(strings.Join(strings.Fields(s), " "), max)
}
