package openai

// chat: this file is not upstream's (see CHAT-PATCH.md).

import (
	"bytes"
	"regexp"
	"testing"
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
