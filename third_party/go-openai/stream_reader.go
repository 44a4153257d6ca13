package openai

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"

	utils "github.com/sashabaranov/go-openai/internal"
)

// chat: upstream matched every line against two regular expressions,
// `^data:\s*` and `^data:\s*{"error":`, and removed the first with
// ReplaceAll: three regexp runs a line, most of what reading a stream cost
// after decoding it. cutData does the same with byte comparisons (see
// CHAT-PATCH.md).

// cutData is line without its `data:` field name and the white space that
// follows (RE2's \s: tab, newline, form feed, carriage return, space),
// and whether line starts with `data:`. Else it is line as it is.
func cutData(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return line, false
	}
	for len(rest) > 0 && isRE2Space(rest[0]) {
		rest = rest[1:]
	}
	return rest, true
}

func isRE2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isErrorLine is `^data:\s*{"error":`.
func isErrorLine(line []byte) bool {
	rest, ok := cutData(line)
	return ok && bytes.HasPrefix(rest, []byte(`{"error":`))
}

type streamable interface {
	ChatCompletionStreamResponse | CompletionResponse | ResponseStreamEvent
}

type streamReader[T streamable] struct {
	emptyMessagesLimit uint
	isFinished         bool

	reader         *bufio.Reader
	line           []byte // chat: a line longer than reader's buffer
	response       *http.Response
	errAccumulator utils.ErrorAccumulator
	unmarshaler    utils.Unmarshaler

	httpHeader
}

func (stream *streamReader[T]) Recv() (response T, err error) {
	rawLine, err := stream.RecvRaw()
	if err != nil {
		return
	}

	err = stream.unmarshaler.Unmarshal(rawLine, &response)
	if err != nil {
		return
	}
	return response, nil
}

// readLine is ReadBytes('\n') without a new slice per line (chat: see
// CHAT-PATCH.md): the line is in the reader's buffer, or in stream.line
// when it is longer, and valid until the next call.
func (stream *streamReader[T]) readLine() ([]byte, error) {
	line, err := stream.reader.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	stream.line = append(stream.line[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = stream.reader.ReadSlice('\n')
		stream.line = append(stream.line, line...)
	}
	return stream.line, err
}

// RecvRaw returns the next event's data. chat: it is valid until the next
// call (it was a new slice each time upstream).
func (stream *streamReader[T]) RecvRaw() ([]byte, error) {
	if stream.isFinished {
		return nil, io.EOF
	}

	return stream.processLines()
}

//nolint:gocognit
func (stream *streamReader[T]) processLines() ([]byte, error) {
	var (
		emptyMessagesCount uint
		hasErrorPrefix     bool
	)

	for {
		rawLine, readErr := stream.readLine()
		if readErr != nil || hasErrorPrefix {
			respErr := stream.unmarshalError()
			// respErr.Error can be nil even when respErr itself isn't:
			// any payload that round-trips through unmarshaler.Unmarshal
			// (an empty object, an aborted partial frame after context
			// cancellation, etc.) ends up as a non-nil *ErrorResponse with
			// a nil Error field. Wrapping that produced the famously
			// useless "error, <nil>" message in #1060.
			if respErr != nil && respErr.Error != nil {
				return nil, fmt.Errorf("error, %w", respErr.Error)
			}
			return nil, readErr
		}

		noSpaceLine := bytes.TrimSpace(rawLine)
		if isErrorLine(noSpaceLine) {
			hasErrorPrefix = true
		}
		noPrefixLine, isData := cutData(noSpaceLine)
		if !isData || hasErrorPrefix {
			if hasErrorPrefix {
				noSpaceLine = noPrefixLine
			}
			writeErr := stream.errAccumulator.Write(noSpaceLine)
			if writeErr != nil {
				return nil, writeErr
			}
			emptyMessagesCount++
			if emptyMessagesCount > stream.emptyMessagesLimit {
				return nil, ErrTooManyEmptyStreamMessages
			}

			continue
		}

		if string(noPrefixLine) == "[DONE]" {
			stream.isFinished = true
			return nil, io.EOF
		}

		return noPrefixLine, nil
	}
}

func (stream *streamReader[T]) unmarshalError() (errResp *ErrorResponse) {
	errBytes := stream.errAccumulator.Bytes()
	if len(errBytes) == 0 {
		return
	}

	err := stream.unmarshaler.Unmarshal(errBytes, &errResp)
	if err != nil {
		errResp = nil
	}

	return
}

func (stream *streamReader[T]) Close() error {
	return stream.response.Body.Close()
}
