package jsonschema

import (
	"runtime"
	"testing"
)

// TestSchemaFieldsFoundOnFirstUse checks chat's patch: Schema's fields are
// reflected over by the first operation that walks them, not at init, and
// only once. It must run before any other test walks a schema (this file
// sorts first).
func TestSchemaFieldsFoundOnFirstUse(t *testing.T) {
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	clone := func() {
		s := &Schema{Type: "object", Properties: map[string]*Schema{"a": {Type: "string"}}}
		if c := s.CloneSchemas(); c.Properties["a"] == s.Properties["a"] {
			t.Fatal("CloneSchemas did not copy a sub-schema")
		}
	}
	first, again := allocated(clone), allocated(clone)
	if first < again+32<<10 {
		t.Errorf("the first walk allocated %d bytes, the second %d: the fields were found before the first", first, again)
	}
	if infos := schemaFieldInfos(); len(infos) == 0 || schemaFieldMap()["properties"].Name != "Properties" {
		t.Errorf("fields: %d, properties -> %q", len(infos), schemaFieldMap()["properties"].Name)
	}
}
