package lexers

import "testing"

// TestNothingRegisteredAtInit checks chat's patch: at init the lexers
// written in Go are only noted, and none around an embedded XML lexer has
// parsed it; the first lookup registers them all, Go lexers winning names
// they share with XML ones, as upstream. It must run before any lookup
// (this is the package's only test file).
func TestNothingRegisteredAtInit(t *testing.T) {
	if n := len(GlobalLexerRegistry.Lexers); n != 0 {
		t.Fatalf("%d lexers registered at init", n)
	}
	if len(registered) == 0 {
		t.Fatal("no lexer written in Go noted at init")
	}
	for _, name := range []string{"go", "go-html-template", "go-text-template", "common-lisp", "elisp", "markdown", "svelte", "phtml", "html", "mysql", "dns"} {
		if Get(name) == nil {
			t.Errorf("no lexer for %q", name)
		}
	}
	if _, ok := Get("common-lisp").(*xmlLexer); ok {
		t.Error("common-lisp is the bare XML lexer, not the Go one around it")
	}
	if Register(Fallback) != Fallback || len(registered) != 0 {
		t.Error("a lexer registered after the load waited for another")
	}
}
