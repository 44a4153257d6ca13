package llm

import (
	"encoding/json"
	"testing"
)

// TestFlexTextFastPath: a string read without a second decoding pass is
// what encoding/json would have made of it, escapes, unicode and invalid
// bytes included.
func TestFlexTextFastPath(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`"plain text"`, `"é中🙂"`, `"line\nbreak \"quoted\" \u00e9 \ud83d\ude42"`, "\"bad \xff byte\"", `""`} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		var f flexText
		if err := f.UnmarshalJSON([]byte(raw)); err != nil || f.Text != want {
			t.Errorf("%q: %q, want %q (%v)", raw, f.Text, want, err)
		}
	}
}
