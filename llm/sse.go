package llm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxSSELine bounds one line of an event stream: go-openai holds a whole
// line in memory.
const maxSSELine = 8 << 20

// maxSkippedLines bounds the lines in a row that carry no event (a
// server that only ever sends comments would otherwise hold the turn).
const maxSkippedLines = 100_000

// sseNormalizer rewrites an event stream, line by line, into the subset
// go-openai's reader takes well: only `data:` lines and blank separators.
//
//   - comments (": OPENROUTER PROCESSING") and the id:, retry:, event:
//     fields are dropped; go-openai would pile them into its error buffer
//     and, after an `event: error`, lose the error that follows;
//   - blank separators are dropped (go-openai takes each data line as
//     one event);
//   - llama.cpp's `error: {…}` line becomes `data: {"error": {…}}`, the
//     shape go-openai reports as an error.
//
// Data lines pass through untouched, so the cost is one scan per line.
type sseNormalizer struct {
	src     *bufio.Reader
	body    io.Closer
	pending []byte
	partial bool   // inside a line longer than the buffer: pass it through
	long    []byte // a line longer than the buffer, gathered (next)
	lineLen int    // bytes of the current line so far
	err     error
	// sawDone is set at `data: [DONE]`, which go-openai reports as a plain
	// EOF: with it, a stream without a finish_reason still ended properly.
	sawDone *bool
}

func newSSENormalizer(body io.ReadCloser, sawDone *bool) *sseNormalizer {
	if sawDone == nil {
		sawDone = new(bool)
	}
	return &sseNormalizer{src: bufio.NewReaderSize(body, 64<<10), body: body, sawDone: sawDone}
}

func (n *sseNormalizer) Read(p []byte) (int, error) {
	for len(n.pending) == 0 {
		if n.err != nil {
			return 0, n.err
		}
		line, err := n.src.ReadSlice('\n')
		n.err = err
		if err == bufio.ErrBufferFull {
			n.err = nil
			if n.lineLen += len(line); n.lineLen > maxSSELine {
				n.err = fmt.Errorf("%w: one line of the stream passed %d MiB", ErrAnswerTooLarge, maxSSELine>>20)
				return 0, n.err
			}
		} else {
			n.lineLen = 0
		}
		n.pending = n.rewrite(line, err == bufio.ErrBufferFull)
	}
	k := copy(p, n.pending)
	n.pending = n.pending[k:]
	return k, nil
}

func (n *sseNormalizer) rewrite(line []byte, more bool) []byte {
	whole := !n.partial
	n.partial = more
	if !whole || len(line) == 0 {
		return line
	}
	switch {
	case bytes.HasPrefix(line, []byte("data:")):
		if len(line) < 16 && string(bytes.TrimSpace(line[len("data:"):])) == "[DONE]" {
			*n.sawDone = true
		}
		return line
	case line[0] == '\n', line[0] == '\r' && len(bytes.TrimSpace(line)) == 0:
		// A separator: go-openai takes each data line as one event, and
		// reading a blank one costs it as much as a data line.
		return nil
	case line[0] == ':', bytes.HasPrefix(line, []byte("event:")), bytes.HasPrefix(line, []byte("id:")), bytes.HasPrefix(line, []byte("retry:")):
		if more { // a huge comment: drop its rest too
			n.partial = false
			n.skipRest()
		}
		return nil
	case bytes.HasPrefix(line, []byte("error:")):
		payload := bytes.TrimSpace(line[len("error:"):])
		if more {
			rest, _ := n.readRest()
			payload = append(append([]byte(nil), payload...), bytes.TrimSpace(rest)...)
			n.partial = false
		}
		out := append([]byte(`data: {"error":`), payload...)
		return append(out, "}\n"...)
	}
	return line
}

func (n *sseNormalizer) skipRest() {
	for {
		if _, err := n.src.ReadSlice('\n'); err != bufio.ErrBufferFull {
			n.err = err
			return
		}
	}
}

func (n *sseNormalizer) readRest() ([]byte, error) {
	rest, err := n.src.ReadBytes('\n')
	n.err = err
	return rest, err
}

func (n *sseNormalizer) Close() error { return n.body.Close() }

// next is the payload of the stream's next event: a data line without
// its prefix and surrounding space, or llama.cpp's error line as
// {"error": …}. Comments, fields and separators are skipped; [DONE] and
// the end of the stream are io.EOF. chat reads events here rather than
// through go-openai's reader, which matched each line against two
// regular expressions and copied it (13 % of a long stream's CPU).
func (n *sseNormalizer) next() ([]byte, error) {
	for skipped := 0; ; skipped++ {
		if skipped > maxSkippedLines {
			return nil, fmt.Errorf("%w: %d lines in a row that are not events", ErrMalformed, maxSkippedLines)
		}
		line, err := n.line()
		line = bytes.TrimSpace(line)
		if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			p = bytes.TrimLeft(p, " \t")
			if string(p) == "[DONE]" {
				*n.sawDone = true
				return nil, io.EOF
			}
			return p, nil
		}
		if p, ok := bytes.CutPrefix(line, []byte("error:")); ok {
			return append(append([]byte(`{"error":`), bytes.TrimSpace(p)...), '}'), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// line reads one whole line (its end kept). A line longer than the
// buffer is gathered in n.long, up to maxSSELine; the slice is valid until
// the next call.
func (n *sseNormalizer) line() ([]byte, error) {
	if n.err != nil {
		return nil, n.err
	}
	line, err := n.src.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		n.err = err
		return line, err
	}
	n.long = append(n.long[:0], line...)
	for err == bufio.ErrBufferFull {
		if len(n.long) > maxSSELine {
			n.err = fmt.Errorf("%w: one line of the stream passed %d MiB", ErrAnswerTooLarge, maxSSELine>>20)
			return nil, n.err
		}
		line, err = n.src.ReadSlice('\n')
		n.long = append(n.long, line...)
	}
	n.err = err
	return n.long, err
}

// eventReady reports whether the stream's next event is already read from
// the network: a whole data (or llama.cpp error) line in the buffer, so
// reading it will not wait. Separators, comments and fields do not count.
func (n *sseNormalizer) eventReady() bool {
	if n.err != nil || n.partial {
		return false
	}
	buf, _ := n.src.Peek(n.src.Buffered())
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return false
		}
		if bytes.HasPrefix(buf, []byte("data:")) || bytes.HasPrefix(buf, []byte("error:")) {
			return true
		}
		buf = buf[i+1:]
	}
}

// normalizeStream wraps an event-stream body; other bodies pass as they
// are (nil then).
func normalizeStream(resp *http.Response, sawDone *bool) *sseNormalizer {
	if resp.StatusCode < 300 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		n := newSSENormalizer(resp.Body, sawDone)
		resp.Body = n
		return n
	}
	return nil
}
