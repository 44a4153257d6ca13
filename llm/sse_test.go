package llm

import (
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
