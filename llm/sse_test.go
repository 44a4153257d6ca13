package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSENormalizer: each shape a real server sends gives the events it
// carries, read a byte at a time.
func TestSSENormalizer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"data passes", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`}},
		{"comments and fields dropped", ": OPENROUTER PROCESSING\n\nid: 7\nevent: message\nretry: 10\ndata: {}\n\n", []string{"{}"}},
		{"groq event error", "event: error\ndata: {\"error\":{\"message\":\"m\"}}\n\n", []string{`{"error":{"message":"m"}}`}},
		{"llama.cpp error line", "error: {\"code\":500,\"message\":\"boom\"}\n\n", []string{`{"error":{"code":500,"message":"boom"}}`}},
		{"long data line", "data: \"" + long + "\"\n\n", []string{`"` + long + `"`}},
		{"long comment", ": " + long + "\ndata: {}\n\n", []string{"{}"}},
		{"no trailing newline", "data: {}", []string{"{}"}},
		{"separators dropped", "\r\n\ndata: {}\r\n\r\n\n", []string{"{}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := newSSENormalizer(io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.in))), nil)
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
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", clipBytes([]byte(strings.Join(got, "|")), 200), clipBytes([]byte(strings.Join(tt.want, "|")), 200))
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
