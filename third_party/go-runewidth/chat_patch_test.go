package runewidth

import (
	"testing"
	"unicode/utf8"
)

// TestChatFewWidthsBuildNoTable checks chat's patch: a few widths above
// 0x300 are answered without building the 2 MB table, the same as the
// table would answer, and many build it. It must run before any test that
// builds the table (this file sorts before runewidth_test.go).
func TestChatFewWidthsBuildNoTable(t *testing.T) {
	if strictWidthLUTLimit.Load() != 0x300 {
		t.Skip("the table was built by an earlier test")
	}
	narrow, wide := NewCondition(), NewCondition()
	narrow.EastAsianWidth, wide.EastAsianWidth = false, true
	for _, r := range "─│╭╮›…→✓⚠漢字😀\u0301" {
		if got, want := narrow.RuneWidth(r), runeWidthNoLUT(r, false, true); got != want {
			t.Errorf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
		if got, want := wide.RuneWidth(r), runeWidthNoLUT(r, true, true); got != want {
			t.Errorf("east Asian RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
	if l := strictWidthLUTLimit.Load(); l != 0x300 {
		t.Fatalf("a few widths built the table (limit %#x)", l)
	}
	for r := rune(0x300); slowWidthLookups.Load() <= lutAfterSlowLookups; r = (r + 1) % utf8.MaxRune {
		narrow.RuneWidth(r)
	}
	narrow.RuneWidth('─')
	if l := strictWidthLUTLimit.Load(); l != 0x110000 {
		t.Fatalf("%d widths did not build the table (limit %#x)", slowWidthLookups.Load(), l)
	}
	for _, r := range "─│╭╮›…→✓⚠漢字😀\u0301" {
		if got, want := narrow.RuneWidth(r), runeWidthNoLUT(r, false, true); got != want {
			t.Errorf("from the table: RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
}
