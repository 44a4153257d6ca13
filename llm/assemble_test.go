package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func ip(i int) *int { return &i }

func TestAssembler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		deltas []ToolCallDelta
		want   string // name(args) joined by " | "
	}{
		{"split args", []ToolCallDelta{{Index: ip(0), ID: "a", Name: "f"}, {Index: ip(0), Arguments: `{"x"`}, {Index: ip(0), Arguments: `:1}`}}, `f({"x":1})`},
		{"interleaved", []ToolCallDelta{{Index: ip(0), ID: "a", Name: "f"}, {Index: ip(1), ID: "b", Name: "g"}, {Index: ip(1), Arguments: "{}"}, {Index: ip(0), Arguments: "[]"}}, `f([]) | g({})`},
		{"index from 1", []ToolCallDelta{{Index: ip(1), ID: "a", Name: "f", Arguments: "{"}, {Index: ip(1), Arguments: "}"}}, `f({})`},
		{"no index, whole calls", []ToolCallDelta{{ID: "a", Name: "f", Arguments: "{}"}, {ID: "b", Name: "g", Arguments: "{}"}}, `f({}) | g({})`},
		{"no index, continued", []ToolCallDelta{{ID: "a", Name: "f", Arguments: "{"}, {Arguments: "}"}}, `f({})`},
		{"index 0 reused with new ids", []ToolCallDelta{{Index: ip(0), ID: "a", Name: "f", Arguments: "{}"}, {Index: ip(0), ID: "b", Name: "g", Arguments: "{}"}}, `f({}) | g({})`},
		{"empty fragments", []ToolCallDelta{{Index: ip(0), ID: "a", Name: "f"}, {Index: ip(0)}, {Index: ip(0), Arguments: "{}"}}, `f({})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Assembler
			for _, d := range tt.deltas {
				a.Add(d)
			}
			var got []string
			for _, c := range a.Calls() {
				got = append(got, c.Name+"("+c.Arguments+")")
			}
			if strings.Join(got, " | ") != tt.want {
				t.Fatalf("got %q, want %q", strings.Join(got, " | "), tt.want)
			}
		})
	}
}

// FuzzAssembler splits several calls' arguments at arbitrary points and
// interleaves them; the assembled calls must equal the originals.
func FuzzAssembler(f *testing.F) {
	f.Add(`{"path":"a"}`, `{"q":"x y"}`, uint8(3), uint8(1))
	f.Add("", "{}", uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, args0, args1 string, piece, order uint8) {
		n := int(piece%7) + 1
		args := []string{args0, args1}
		var a Assembler
		frags := [][]string{chop(args0, n), chop(args1, n)}
		a.Add(ToolCallDelta{Index: ip(0), ID: "c0", Name: "f0"})
		a.Add(ToolCallDelta{Index: ip(1), ID: "c1", Name: "f1"})
		for k := 0; k < len(frags[0]) || k < len(frags[1]); k++ {
			for j := range 2 {
				i := (j + int(order>>(k%8)&1)) % 2
				if k < len(frags[i]) {
					a.Add(ToolCallDelta{Index: ip(i), Arguments: frags[i][k]})
				}
			}
		}
		calls := a.Calls()
		if len(calls) != 2 {
			t.Fatalf("%d calls", len(calls))
		}
		for i, c := range calls {
			if c.Arguments != args[i] || c.ID != "c"+string(rune('0'+i)) {
				t.Fatalf("call %d = %+v, want args %q", i, c, args[i])
			}
			if json.Valid([]byte(args[i])) != json.Valid([]byte(c.Arguments)) {
				t.Fatal("validity changed")
			}
		}
	})
}

func chop(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
