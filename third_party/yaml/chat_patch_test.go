package yaml

import "testing"

// TestTablesFilledOnFirstUse checks chat's patch: nothing is filled at
// init, and the first document decoded fills the tables and resolves as
// upstream does. It must run before any other test decodes (the
// package's internal tests run before its external ones).
func TestTablesFilledOnFirstUse(t *testing.T) {
	if len(resolveMap) != 0 || resolveTable['t'] != 0 || len(longTags) != 0 || len(shortTags) != 0 {
		t.Fatalf("filled at init: %d resolve entries, %d long tags", len(resolveMap), len(longTags))
	}
	var v map[string]any
	if err := Unmarshal([]byte("a: true\nb: 1.5\nc: ~\nd: 0x1F\ne: .inf\nf: 190:20:30\ng: !!str 7\n"), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": true, "b": 1.5, "c": nil, "d": 31, "f": "190:20:30", "g": "7"}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s: %#v, want %#v", k, v[k], w)
		}
	}
	if f, ok := v["e"].(float64); !ok || f <= 1e308 {
		t.Errorf("e: %#v, want +Inf", v["e"])
	}
	if len(resolveMap) == 0 || resolveTable['t'] != 'M' || shortTag("tag:yaml.org,2002:str") != strTag || longTag(boolTag) != "tag:yaml.org,2002:bool" {
		t.Error("the first decode did not fill the tables")
	}
	out, err := Marshal(map[string]string{"p": "190:20:30", "q": "1e3"})
	if err != nil || string(out) != "p: \"190:20:30\"\nq: \"1e3\"\n" {
		t.Errorf("Marshal: %q, %v", out, err)
	}
}
