package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/quick"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// TestHighlightingAsUpstream: the patched chroma in third_party (lexers and
// styles loaded on first use instead of at init) picks the same lexers,
// cuts the same tokens and colours them the same as chroma v2.14.0 did:
// code of many languages (by name, alias, extension, guessed by an
// analyser, unknown) is rendered to HTML (deterministic, unlike the
// terminal palettes, whose nearest-colour ties chroma breaks at random) and
// compared with what the unpatched module rendered.
func TestHighlightingAsUpstream(t *testing.T) {
	t.Parallel()
	samples := []struct{ lang, code string }{
		{"go", "package main\n\nfunc main() { println(\"hi\") }\n"},
		{"python", "def f(x):\n    return x * 2  # twice\n"},
		{"sh", "for f in *.go; do echo \"$f\"; done\n"},
		{"js", "const a = [1, 2].map(x => x + 1);\n"},
		{"json", "{\"a\": [1, true, null]}\n"},
		{"mysql", "SELECT `name` FROM `users` WHERE id = 1;\n"},
		{"html", "<p class=\"x\">hi <b>there</b></p>\n"},
		{"markdown", "# title\n\n```go\nx := 1\n```\n"},
		{"rs", "fn main() { let x: u8 = 1; }\n"},
		{"elisp", "(defun f (x) (* x 2))\n"},
		{"common-lisp", "(defun f (x) (car (list x :key)))\n"},
		{"go-html-template", "{{ if .X }}<b>{{ .Y }}</b>{{ end }}\n"},
		{"go-text-template", "{{ range .Items }}- {{ . }}\n{{ end }}"},
		{"svelte", "<script>let n = 1;</script>\n<p>{n}</p>\n"},
		{"", "$ORIGIN example.com.\n@ IN SOA ns1 admin 1 2 3 4 5\n"},
		{"", "#!/usr/bin/env python\nimport os\n"},
		{"no-such-language", "plain words\n"},
	}
	var out strings.Builder
	for _, style := range []string{"swapoff", "monokai", "github", "no-such-style"} {
		for _, s := range samples {
			out.WriteString("== " + s.lang + " in " + style + "\n")
			if err := quick.Highlight(&out, s.code, s.lang, "html", style); err != nil {
				t.Fatal(err)
			}
		}
	}
	out.WriteString("== lexers\n" + strings.Join(lexers.Names(true), " ") + "\n")
	// glamour registers its own "charm" style once it first renders code,
	// which other tests of this package may have done by now.
	names := slices.DeleteFunc(chromastyles.Names(), func(n string) bool { return n == "charm" })
	out.WriteString("== styles\n" + strings.Join(names, " ") + "\n")
	for _, f := range []string{"main.go", "x.py", "Makefile", "a.tsx", "zone.db", "init.el", "a.lisp", "page.phtml", "App.svelte", "index.html"} {
		if l := lexers.Match(f); l != nil {
			out.WriteString(f + ": " + l.Config().Name + "\n")
		}
	}
	got := out.String()
	path := filepath.Join("testdata", "highlight.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run HighlightingAsUpstream -update)", err)
	}
	if got != string(want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("highlighting differs from upstream chroma from byte %d:\n%q\nwant\n%q",
			i, got[max(i-100, 0):min(i+100, len(got))], want[max(i-100, 0):min(i+100, len(want))])
	}
}
