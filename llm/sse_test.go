package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSSENormalizer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	tests := []struct{ name, in, want string }{
		{"data passes", "data: {\"a\":1}\n\ndata: [DONE]\n\n", "data: {\"a\":1}\ndata: [DONE]\n"},
		{"comments and fields dropped", ": OPENROUTER PROCESSING\n\nid: 7\nevent: message\nretry: 10\ndata: {}\n\n", "data: {}\n"},
		{"groq event error", "event: error\ndata: {\"error\":{\"message\":\"m\"}}\n\n", "data: {\"error\":{\"message\":\"m\"}}\n"},
		{"llama.cpp error line", "error: {\"code\":500,\"message\":\"boom\"}\n\n", "data: {\"error\":{\"code\":500,\"message\":\"boom\"}}\n"},
		{"long data line", "data: \"" + long + "\"\n\n", "data: \"" + long + "\"\n"},
		{"long comment", ": " + long + "\ndata: {}\n\n", "data: {}\n"},
		{"no trailing newline", "data: {}", "data: {}"},
		{"separators dropped", "\r\n\ndata: {}\r\n\r\n\n", "data: {}\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := newSSENormalizer(io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.in))), nil)
			got, err := io.ReadAll(n)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q (%v), want %q", clipBytes(got, 200), err, clipBytes([]byte(tt.want), 200))
			}
		})
	}
}

// TestSSEEvents: next yields each event's payload as go-openai's reader
// did (prefix and space cut, comments, fields and separators skipped,
// llama.cpp's error line wrapped, [DONE] the end), long lines whole.
func TestSSEEvents(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	in := ": OPENROUTER PROCESSING\n\nid: 7\nevent: message\nretry: 10\ndata: {\"a\":1}\r\n\r\n" +
		"data:{\"b\":2}\n\ndata: \t\"" + long + "\"  \n\nerror: {\"code\":500}\n\ndata: [DONE]\n\ndata: {\"after\":1}\n"
	done := false
	n := newSSENormalizer(io.NopCloser(iotest.OneByteReader(strings.NewReader(in))), &done)
	var got []string
	for {
		p, err := n.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(p))
	}
	want := []string{`{"a":1}`, `{"b":2}`, `"` + long + `"`, `{"error":{"code":500}}`}
	if !done || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("done=%v got %q", done, clipBytes([]byte(strings.Join(got, "|")), 300))
	}
	endless := newSSENormalizer(io.NopCloser(strings.NewReader(strings.Repeat(": keep-alive\n", maxSkippedLines+2))), nil)
	if _, err := endless.next(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("only comments: %v", err)
	}
}
