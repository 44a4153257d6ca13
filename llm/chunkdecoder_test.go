package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestChunkDecoderIsUnmarshal: decoding a stream's lines with the reused
// decoder gives, line by line, what json.Unmarshal gives each one alone:
// nothing carries over from one chunk to the next (usage, finish reasons,
// tool calls, errors), and a line that is not one JSON value gets
// Unmarshal's own error.
func TestChunkDecoderIsUnmarshal(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":"a"},"finish_reason":null},{"index":1,"delta":{"content":"b"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"t"},{"type":"thinking","thinking":"hm"}]}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"why"},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
		`{"choices":[{"delta":{"content":"é\n\"q\""}}]}`,
		`{"choices":[{"delta":{}}]} `,
		`{"error":{"message":"boom","type":"server_error","code":500}}`,
		`{"choices":[{"delta":{"content":"after"}}]}`,
		`{"choices":[{"delta":{"content":"x"}}]}{"choices":[]}`,
		`{"choices":[{"delta":{"content":"next"}}]}`,
		`{"choices":[{"delta":{"content":`,
		`{"Choices":[{"Delta":{"Content":"case-insensitive keys, as encoding/json"}}]}`,
		"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf-8\"}}]}",
		`{"choices":[{"delta":{"content":"first"},"delta":{"content":"second"}}]}`,
		`{"choices":[{"delta":{"content":null,"tool_calls":null},"finish_reason":null}],"usage":null}`,
		`{"choices":[{"delta":{"content":"\u00e9\ud83d\ude00 escaped"}}],"extra":{"deep":[1,2.5e300,{"x":[true,false,null]}]}}`,
		`{"error":{"message":"m","code":"rate_limit"}}`,
		`{"choices":"not an array"}`,
		`{"choices":[{"delta":{"content":12}}]}`,
		`   {"choices":[{"delta":{"content":"spaces around"}}]}   `,
		`[]`,
		``,
	}
	d := newChunkDecoder()
	for _, line := range lines {
		var want wireBody[deltaChoice]
		wantErr := json.Unmarshal([]byte(line), &want)
		got, err := d.decode([]byte(line))
		if wantErr != nil || err != nil {
			if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
				t.Errorf("%s: error %v, json.Unmarshal's %v", line, err, wantErr)
			}
			continue
		}
		if len(want.Choices) == 0 {
			want.Choices = got.Choices[:0] // an empty array kept, not nil: the same to its readers
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, *got, want)
		}
	}
}
