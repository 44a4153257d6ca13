package runewidth

import (
	"testing"
	"unicode/utf8"
)

// TestChatFewWidthsBuildNoTable checks chat's patch: nothing is filled at
// init, a few widths fill only the table below 0x300 and answer those above
// without building the 2 MB table, the same as the table would answer, and
// many build it. It must run before any test that
// builds the table (this file sorts before runewidth_test.go).
func TestChatFewWidthsBuildNoTable(t *testing.T) {
	if l := strictWidthLUTLimit.Load(); l != 0 {
		t.Fatalf("a table filled at init (limit %#x)", l)
	}
	if isJoiner('\u200d') != true || joinerBits == [len(joinerBits)]byte{} {
		t.Fatal("the joiner bitmap is not filled at the first joiner asked")
	}
	narrow, wide := NewCondition(), NewCondition()
	narrow.EastAsianWidth, wide.EastAsianWidth = false, true
	for _, r := range "aé\u00ad─│╭╮›…→✓⚠漢字😀\u0301" {
		if got, want := narrow.RuneWidth(r), runeWidthNoLUT(r, false, true); got != want {
			t.Errorf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
		if got, want := wide.RuneWidth(r), runeWidthNoLUT(r, true, true); got != want {
			t.Errorf("east Asian RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
	if l := strictWidthLUTLimit.Load(); l != 0x300 {
		t.Fatalf("a few widths left the table at limit %#x, want 0x300", l)
	}
	for r := rune(0x300); slowWidthLookups.Load() <= lutAfterSlowLookups; r = (r + 1) % utf8.MaxRune {
		narrow.RuneWidth(r)
	}
	narrow.RuneWidth('─')
	if l := strictWidthLUTLimit.Load(); l != 0x110000 {
		t.Fatalf("%d widths did not build the table (limit %#x)", slowWidthLookups.Load(), l)
	}
	for _, r := range "aé\u00ad─│╭╮›…→✓⚠漢字😀\u0301" {
		if got, want := narrow.RuneWidth(r), runeWidthNoLUT(r, false, true); got != want {
			t.Errorf("from the table: RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
}
