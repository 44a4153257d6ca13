package parser

import (
	"bytes"
	"testing"
)

// TestStaticTableIsGenerated checks chat's patch: the table laid out by
// the linker is the one GenerateTransitionTable builds (go run
// gen_static_table.go writes it again).
func TestStaticTableIsGenerated(t *testing.T) {
	if !bytes.Equal(Table, GenerateTransitionTable()) {
		t.Fatal("transition_table_static.go is not GenerateTransitionTable's table: go run gen_static_table.go")
	}
}
