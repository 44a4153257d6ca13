//go:build freebsd || linux || netbsd || openbsd || solaris || dragonfly

package clipboard

import "testing"

// TestCommandsFoundOnFirstUse checks chat's patch: nothing is looked for
// at init, and the first ReadAll looks. It must run before the other tests
// (this file sorts before clipboard_test.go).
func TestCommandsFoundOnFirstUse(t *testing.T) {
	if pasteCmdArgs != nil || copyCmdArgs != nil || Unsupported {
		t.Fatalf("looked at init: paste %v, copy %v, unsupported %v", pasteCmdArgs, copyCmdArgs, Unsupported)
	}
	_, err := ReadAll()
	if pasteCmdArgs == nil || copyCmdArgs == nil {
		t.Fatalf("ReadAll did not look (err %v)", err)
	}
	if Unsupported != (err == missingCommands) {
		t.Fatalf("unsupported %v, but ReadAll said %v", Unsupported, err)
	}
}
