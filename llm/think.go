package llm

import "strings"

// Some servers leave an open model's reasoning in the content, as a
// <think>…</think> block at the start (llama-server without
// --reasoning-format, Ollama's raw mode, Qwen3 and DeepSeek-R1
// templates). inlineThink takes that block out of the text, as the
// reasoning field would have carried it: it is shown as thinking, not as
// the answer, and not sent back as what the model said.
type inlineThink struct {
	state int    // thinkUndecided, thinkInside, thinkClosed, thinkDone
	buf   string // text held: a start that may be "<think>", or a tail that may be "</think>"
}

const (
	thinkUndecided = iota
	thinkInside
	thinkClosed // after </think>: the white space before the answer is dropped
	thinkDone
	openThink  = "<think>"
	closeThink = "</think>"
)

// split passes s on as reasoning and text.
func (t *inlineThink) split(s string) (reasoning, text string) {
	switch t.state {
	case thinkDone:
		return "", s
	case thinkClosed:
		if s = strings.TrimLeft(s, " \t\r\n"); s != "" {
			t.state = thinkDone
		}
		return "", s
	case thinkUndecided:
		t.buf += s
		start := strings.TrimLeft(t.buf, " \t\r\n")
		switch {
		case strings.HasPrefix(start, openThink):
			t.state, s, t.buf = thinkInside, start[len(openThink):], ""
		case strings.HasPrefix(openThink, start):
			return "", "" // "<thi": wait for more
		default:
			t.state, text, t.buf = thinkDone, t.buf, ""
			return "", text
		}
	}
	t.buf += s
	if i := strings.Index(t.buf, closeThink); i >= 0 {
		reasoning, text = t.buf[:i], strings.TrimLeft(t.buf[i+len(closeThink):], " \t\r\n")
		t.state, t.buf = thinkClosed, ""
		if text != "" {
			t.state = thinkDone
		}
		return reasoning, text
	}
	// Hold a tail that may be the start of "</think>".
	keep := 0
	for n := min(len(closeThink)-1, len(t.buf)); n > 0; n-- {
		if strings.HasSuffix(t.buf, closeThink[:n]) {
			keep = n
			break
		}
	}
	reasoning, t.buf = t.buf[:len(t.buf)-keep], t.buf[len(t.buf)-keep:]
	return reasoning, ""
}

// flush is what is held at the end of the content.
func (t *inlineThink) flush() (reasoning, text string) {
	held := t.buf
	t.buf = ""
	if t.state == thinkInside {
		return held, ""
	}
	return "", held
}
