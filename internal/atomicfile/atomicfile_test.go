package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "sub", "f.json")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*tmp*"))
	if string(b) != "two" || st.Mode().Perm() != 0o600 || len(left) != 0 {
		t.Fatalf("%q %v %v", b, st.Mode(), left)
	}
}
