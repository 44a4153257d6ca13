package llm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxSSELine bounds one line of an event stream: it is held whole in
// memory.
const maxSSELine = 8 << 20

// maxSkippedLines bounds the lines in a row that carry no event (a
// server that only ever sends comments would otherwise hold the turn).
const maxSkippedLines = 100_000

// sseNormalizer reads an event stream's events for chat (next): only
// data lines and llama.cpp's `error: {…}` lines carry one; comments
// (": OPENROUTER PROCESSING"), the id:, retry:, event: fields and blank
// separators are skipped. It stands in for the response body go-openai
// holds, which chat never has go-openai read.
type sseNormalizer struct {
	src  *bufio.Reader
	body io.Closer
	long []byte // a line longer than the buffer, gathered
	err  error
	// sawDone is set at `data: [DONE]`: with it, a stream without a
	// finish_reason still ended properly.
	sawDone *bool
}

func newSSENormalizer(body io.ReadCloser, sawDone *bool) *sseNormalizer {
	if sawDone == nil {
		sawDone = new(bool)
	}
	return &sseNormalizer{src: bufio.NewReaderSize(body, 64<<10), body: body, sawDone: sawDone}
}

// Read passes the raw stream on: the body must be an io.ReadCloser, but
// the events are read with next.
func (n *sseNormalizer) Read(p []byte) (int, error) { return n.src.Read(p) }

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
	if n.err != nil {
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
