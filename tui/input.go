package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// pasteChipLines is the size from which a paste shows as a chip.
const pasteChipLines = 10

// maxHistory is how many inputs the history file keeps.
const maxHistory = 1000

// input is the multi-line editor with paste chips and history.
type input struct {
	ta    textarea.Model
	chips map[string]string // chip label -> the full pasted text
	nchip int

	history     []string
	historyPath string
	histPos     int    // len(history) when not browsing
	draft       string // what was typed before browsing history

	// Keys typed faster than they are drawn (a burst without bracketed
	// paste) wait here and go into the textarea together: the textarea
	// wraps a whole line at every change, so a 2,000-character burst
	// inserted key by key cost seconds. typing is set from the first key
	// until typedMsg comes back; keys meanwhile gather in pending.
	pending strings.Builder
	typing  bool
	atEnd   bool // the burst began with the cursor at the end of the text
	// When the first and the last gathered key came: a burst still
	// coming is not put in (each put-in re-wraps the whole text) until
	// it pauses, or has waited maxGather.
	firstGathered, lastGathered time.Time

	// The drawn input is kept until the textarea changes: a burst's keys
	// redraw the whole view after each one, a cost that grew with the text.
	rev, drawnRev, drawnWidth int
	drawn                     string
	// The text is kept too: the status bar, the completions and the
	// mentions read it at every key. Gathered keys are appended to it
	// (a Builder never changes what it handed out), so a key costs the
	// same however long the text is.
	valueRev, valuePending int
	valueText              strings.Builder
}

// typedMsg comes back after a typed key: what gathered since goes in.
type typedMsg struct{}

// typedWait is how long keys gather after one that was inserted at once.
const typedWait = 40 * time.Millisecond

// longInput is the length (in characters) from which a typed key at the
// end waits frameWait to go in with the keys that follow it.
const (
	longInput = 400
	frameWait = 16 * time.Millisecond
)

func newInput(historyPath string) input {
	ta := textarea.New()
	ta.Prompt = ""
	ta.Placeholder = "Ask anything · / for commands · shift+enter or ctrl+j for a new line"
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 10
	ta.SetVirtualCursor(true)
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	ta.KeyMap = km
	in := input{ta: ta, chips: map[string]string{}, historyPath: historyPath}
	in.history = loadHistory(historyPath)
	in.histPos = len(in.history)
	return in
}

func (in *input) restyle(st styles) {
	in.rev++
	s := in.ta.Styles()
	s.Focused.Placeholder = st.hint
	s.Blurred.Placeholder = st.hint
	s.Focused.CursorLine = s.Focused.CursorLine.UnsetBackground()
	in.ta.SetStyles(s)
}

func (in *input) focus() tea.Cmd { in.rev++; return in.ta.Focus() }

func (in *input) view(width int) string {
	if in.drawn != "" && in.drawnRev == in.rev && in.drawnWidth == width {
		return in.drawn
	}
	in.ta.SetWidth(max(width-2, 10))
	in.drawn, in.drawnRev, in.drawnWidth = "› "+strings.ReplaceAll(in.ta.View(), "\n", "\n  "), in.rev, width
	return in.drawn
}

func (in *input) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && plainText(k) {
		if in.typing && in.atEnd { // a burst at the end of the text: gathered
			now := time.Now()
			if in.pending.Len() == 0 {
				in.firstGathered = now
			}
			in.pending.WriteString(k.Text)
			in.lastGathered = now
			return nil
		}
		in.atEnd = in.cursorAtEnd()
		if in.atEnd && in.ta.Length() >= longInput {
			// Each put-in of a long text costs a re-wrap of it (~1 ms at
			// 2,000 characters): even the first key waits a frame, so a
			// burst goes in once.
			in.typing = true
			in.firstGathered, in.lastGathered = time.Now(), time.Now()
			in.pending.WriteString(k.Text)
			return tea.Tick(frameWait, func(time.Time) tea.Msg { return typedMsg{} })
		}
		in.rev++
		var cmd tea.Cmd
		in.ta, cmd = in.ta.Update(msg)
		if in.typing {
			return cmd
		}
		in.typing = true
		// A frame's time: the keys of a burst that come meanwhile go in
		// together; a person's next key comes later than that.
		return tea.Batch(cmd, tea.Tick(typedWait, func(time.Time) tea.Msg { return typedMsg{} }))
	}
	in.flushTyped()
	in.rev++
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	if in.typing {
		// A key that moved the cursor (Home, ←) within a burst: what is
		// typed next goes where the cursor is now, not to the end.
		in.atEnd = in.cursorAtEnd()
	}
	return cmd
}

// plainText is a key that only types its text.
func plainText(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&^tea.ModShift == 0 && !strings.ContainsAny(k.Text, "\r\n\t")
}

// cursorAtEnd reports whether the cursor is after the last character.
func (in *input) cursorAtEnd() bool {
	if in.ta.Line() != in.ta.LineCount()-1 {
		return false
	}
	v := in.ta.Value()
	return in.ta.Column() == utf8.RuneCountInString(v[strings.LastIndexByte(v, '\n')+1:])
}

// flushTyped puts the gathered keys into the textarea.
func (in *input) flushTyped() {
	if in.pending.Len() > 0 {
		in.ta.InsertString(in.pending.String())
		in.pending.Reset()
		in.rev++
	}
}

// endTyping is typedMsg: what gathered goes in, and the next key is
// inserted at once; while a burst is still coming (a key in the last
// burstPause, for less than maxGather) it waits a little longer instead.
func (in *input) endTyping() tea.Cmd {
	if now := time.Now(); in.pending.Len() > 0 && now.Sub(in.lastGathered) < burstPause && now.Sub(in.firstGathered) < maxGather {
		return tea.Tick(burstPause, func(time.Time) tea.Msg { return typedMsg{} })
	}
	in.flushTyped()
	in.typing = false
	return nil
}

// burstPause is a pause that ends a burst; maxGather bounds how long
// its keys wait unseen.
const (
	burstPause = 15 * time.Millisecond
	maxGather  = 250 * time.Millisecond
)

// value is the text, with keys still gathered (they are at its end).
func (in *input) value() string {
	if p := in.pending.String(); in.valueRev != in.rev || len(p) < in.valuePending {
		in.valueText = strings.Builder{}
		in.valueText.WriteString(in.ta.Value())
		in.valueText.WriteString(p)
		in.valueRev, in.valuePending = in.rev, len(p)
	} else if len(p) > in.valuePending {
		in.valueText.WriteString(p[in.valuePending:])
		in.valuePending = len(p)
	}
	return in.valueText.String()
}

func (in *input) empty() bool { return in.value() == "" }

func (in *input) set(s string) {
	in.rev++
	in.flushTyped()
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
}

func (in *input) clear() {
	in.rev++
	in.pending.Reset()
	in.ta.Reset()
	in.chips = map[string]string{}
	in.histPos = len(in.history)
}

// paste inserts pasted text; a long paste becomes a chip that is expanded
// when the input is sent. It never submits.
func (in *input) paste(text string) {
	in.rev++
	in.flushTyped()
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1 // a final newline ends a line, it starts none
	if lines <= pasteChipLines {
		in.ta.InsertString(text)
		return
	}
	in.nchip++
	label := fmt.Sprintf("[pasted %d lines #%d]", lines, in.nchip)
	in.chips[label] = text
	in.ta.InsertString(label)
}

// text is the input as it will be sent: chips expanded.
func (in *input) text() string {
	in.flushTyped()
	s := in.ta.Value()
	for label, full := range in.chips {
		s = strings.ReplaceAll(s, label, full)
	}
	return s
}

// onFirstLine and onLastLine decide whether Up/Down browse history or move
// the cursor inside a multi-line input.
func (in *input) onFirstLine() bool { in.flushTyped(); return in.ta.Line() == 0 }
func (in *input) onLastLine() bool  { in.flushTyped(); return in.ta.Line() >= in.ta.LineCount()-1 }

func (in *input) historyPrev() bool {
	in.rev++
	in.flushTyped()
	if in.histPos == 0 {
		return false
	}
	if in.histPos == len(in.history) {
		in.draft = in.ta.Value()
	}
	in.histPos--
	in.set(in.history[in.histPos])
	return true
}

func (in *input) historyNext() bool {
	in.rev++
	in.flushTyped()
	if in.histPos >= len(in.history) {
		return false
	}
	in.histPos++
	if in.histPos == len(in.history) {
		in.set(in.draft)
	} else {
		in.set(in.history[in.histPos])
	}
	return true
}

// remember adds a sent input to the history; the returned command appends
// it to the file (no IO in Update).
func (in *input) remember(s string) tea.Cmd {
	in.histPos = len(in.history)
	if strings.TrimSpace(s) == "" || len(s) > 64<<10 {
		return nil
	}
	if n := len(in.history); n > 0 && in.history[n-1] == s {
		return nil
	}
	in.history = append(in.history, s)
	if len(in.history) > maxHistory {
		in.history = in.history[len(in.history)-maxHistory:]
	}
	in.histPos = len(in.history)
	path := in.historyPath
	return func() tea.Msg {
		appendHistory(path, s)
		return nil
	}
}

// History file: one JSON string per line, so multi-line inputs survive.
func loadHistory(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			out = append(out, s)
		}
	}
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out
}

func appendHistory(path, s string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(s)
	_, _ = f.Write(append(b, '\n'))
}
