package openai

// chat: this file is not upstream's (see CHAT-PATCH.md).

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	utils "github.com/sashabaranov/go-openai/internal"
)

// TestCutDataIsTheRegexps: cutData and isErrorLine give what upstream's
// regular expressions gave, for every line a stream can carry.
func TestCutDataIsTheRegexps(t *testing.T) {
	headerData := regexp.MustCompile(`^data:\s*`)
	errorPrefix := regexp.MustCompile(`^data:\s*{"error":`)
	lines := []string{
		"", "data:", "data: ", "data:{}", `data: {"choices":[]}`, "data:\t\f\r\n [DONE]", "data:\v{}", "data:\u00a0{}",
		`data: {"error":{"message":"m"}}`, `data:{"error":`, `data:  {"error" :1}`, `data: data: {}`, "Data: {}", " data: {}",
		"event: error", ": comment", `{"error":{"message":"m"}}`, "dat", "data", "xdata: {}", "data:\x00{}", "data: \u2003{}",
	}
	for _, line := range lines {
		b := []byte(line)
		rest, ok := cutData(b)
		if ok != headerData.Match(b) || !bytes.Equal(rest, headerData.ReplaceAll(b, nil)) {
			t.Errorf("%q: cutData %q %v, the regexp %q %v", line, rest, ok, headerData.ReplaceAll(b, nil), headerData.Match(b))
		}
		if isErrorLine(b) != errorPrefix.Match(b) {
			t.Errorf("%q: isErrorLine %v, the regexp %v", line, isErrorLine(b), errorPrefix.Match(b))
		}
	}
}

// TestRecvRawReadsLongLines: lines longer than the reader's buffer come
// whole, and each line is what the stream carried, the data of the next
// event included after one far longer.
func TestRecvRawReadsLongLines(t *testing.T) {
	long := strings.Repeat("x", 10000)
	body := "data: {\"a\":\"" + long + "\"}\n\ndata: {\"b\":1}\n\n: comment\ndata: " + long[:5000] + "\n\ndata: [DONE]\n\n"
	stream := &streamReader[ChatCompletionStreamResponse]{
		reader:             bufio.NewReaderSize(strings.NewReader(body), 16),
		emptyMessagesLimit: 100,
		errAccumulator:     utils.NewErrorAccumulator(),
		unmarshaler:        &utils.JSONUnmarshaler{},
	}
	for _, want := range []string{`{"a":"` + long + `"}`, `{"b":1}`, long[:5000]} {
		got, err := stream.RecvRaw()
		if err != nil || string(got) != want {
			t.Fatalf("got %.40q… (%d bytes), %v; want %.40q… (%d bytes)", got, len(got), err, want, len(want))
		}
	}
	if _, err := stream.RecvRaw(); err != io.EOF {
		t.Fatalf("after [DONE]: %v", err)
	}
}
