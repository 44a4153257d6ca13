package lsp

import (
	"context"
	"testing"
	"time"
)

// TestWithTypeScript drives the manager against the real TypeScript
// server (make lsp-servers): it publishes a file's syntax and its types
// apart and names no version, so a quiet period after its first word
// took the empty syntax verdict for the file's (a loaded machine), and an
// edit that changed no diagnostic got no publish at all (the check waited
// out its bound and was counted as the server's stall).
func TestWithTypeScript(t *testing.T) {
	server := installed(t, "node_modules/.bin/typescript-language-server")
	root := t.TempDir()
	write := writer(t, root)
	write("tsconfig.json", `{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}`)
	a := write("src/a.ts", "export const n: number = \"s\";\n")
	m := &Manager{Root: root, Start: execStarter, Wait: 20 * time.Second,
		Servers: []Server{{Name: "typescript", Command: []string{server, "--stdio"}, Extensions: []string{".ts"}, RootMarkers: []string{"tsconfig.json"}}}}
	defer m.Close()
	check := func(step, want string) {
		t.Helper()
		r := m.Check(context.Background(), []string{a})
		got := ""
		if len(r.Files) == 1 && r.Files[0].Fresh {
			for _, d := range r.Files[0].Diags {
				got += d.Text() + "\n"
			}
		} else {
			got = "no verdict"
		}
		if got != want {
			t.Fatalf("%s: got %q, want %q (%+v)", step, got, want, r)
		}
	}
	check("broken", "1:14 error: Type 'string' is not assignable to type 'number'. (typescript 2322)\n")
	write("src/a.ts", "export const n: number = 1;\n")
	check("fixed", "")
	// Clean again, and again: nothing the server pushes would change.
	for i := range stallsToDrop {
		write("src/a.ts", "export const n: number = "+string(rune('2'+i))+";\n")
		check("clean again", "")
	}
	if len(m.Running()) != 1 {
		t.Fatalf("the server was dropped: running %v", m.Running())
	}
	write("src/a.ts", "export const n: number = undefinedName;\n")
	check("broken again", "1:26 error: Cannot find name 'undefinedName'. Did you mean 'undefined'? (typescript 2552)\n")
}
