package lsp

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

func fakeLook(found ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, f := range found {
			if f == name {
				return "/usr/bin/" + name, nil
			}
		}
		return "", errors.New("not found")
	}
}

func names(ss []Server) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, " ")
}

func TestResolve(t *testing.T) {
	servers, missing := Resolve(nil, fakeLook("gopls", "clangd"))
	if got := names(servers); got != "clangd gopls" || len(missing) != 0 {
		t.Fatalf("found on PATH: %q, missing %v", got, missing)
	}
	if servers[1].Command[0] != "/usr/bin/gopls" {
		t.Fatalf("the command is not the path found: %v", servers[1].Command)
	}
	servers, missing = Resolve(map[string]Configured{
		"gopls":  {Disabled: true},
		"clangd": {Command: []string{"clangd", "--background-index"}, Wait: 5 * time.Second},
		"zig":    {Command: []string{"zls"}, Extensions: []string{"zig", ".ZON"}},
		"odd":    {Command: []string{"odd-ls"}},
	}, fakeLook("gopls", "clangd", "zls", "pyright-langserver"))
	if got := names(servers); got != "clangd pyright zig" {
		t.Fatalf("servers: %q", got)
	}
	if c := servers[0]; strings.Join(c.Command, " ") != "/usr/bin/clangd --background-index" || c.Wait != 5*time.Second || !c.serves("a.cpp") {
		t.Fatalf("the configured clangd: %+v", c)
	}
	if z := servers[2]; !z.serves("/x/a.zig") || !z.serves("b.zon") || z.serves("c.go") {
		t.Fatalf("the extensions are not normalized: %+v", z.Extensions)
	}
	if strings.Join(missing, "; ") != "odd (no command or extensions)" {
		t.Fatalf("missing: %v", missing)
	}
	_, missing = Resolve(map[string]Configured{"rust-analyzer": {}}, fakeLook())
	if strings.Join(missing, "; ") != "rust-analyzer (rust-analyzer not found)" {
		t.Fatalf("a configured server not found is not said: %v", missing)
	}
}

func TestForModel(t *testing.T) {
	rel := func(p string) string { return strings.TrimPrefix(p, "/w/") }
	if got := (Report{Files: []File{{Path: "/w/a.go", Server: "gopls", Fresh: true}}}).ForModel(rel); got != "" {
		t.Fatalf("a clean file says %q", got)
	}
	stale := Report{Files: []File{{Path: "/w/a.go", Server: "gopls", Diags: []Diagnostic{{Line: 1, Column: 1, Severity: "error", Message: "old"}}}}, Pending: []string{"gopls"}}
	if got := stale.ForModel(rel); strings.Contains(got, "old") || !strings.Contains(got, "gopls gave no diagnostics yet") {
		t.Fatalf("a verdict on an older text is said: %q", got)
	}
	var many []Diagnostic
	for i := range MaxForModel + 5 {
		many = append(many, Diagnostic{Line: i + 1, Column: 2, Severity: "error", Source: "compiler", Code: "X", Message: fmt.Sprintf("bad\n  %d", i)})
	}
	got := (Report{Files: []File{{Path: "/w/a.go", Server: "gopls", Fresh: true, Diags: many}}, Others: Count{Errors: 3}, OtherFiles: 2}).ForModel(rel)
	lines := strings.Split(got, "\n")
	if lines[0] != "[diagnostics after this change (gopls):" || lines[1] != "a.go:1:2 error: bad 0 (compiler X)" ||
		!strings.Contains(got, "… and 5 more") || !strings.Contains(got, "3 errors in 2 other files") || strings.Count(got, "a.go:") != MaxForModel {
		t.Fatalf("capped report:\n%s", got)
	}
}

func TestPosition(t *testing.T) {
	text := []byte("package main\n\nvar é, 𝔸, helper = 1, 2, 3\n")
	for _, c := range []struct {
		line, col int
		symbol    string
		want      int
		err       bool
	}{
		{3, 0, "helper", 11, false}, // é is one UTF-16 unit, 𝔸 two
		{3, 5, "", 4, false},
		{3, 0, "missing", 0, true},
		{9, 1, "", 0, true},
		{3, 0, "", 0, true},
	} {
		got, err := position(text, c.line, c.col, c.symbol)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("position(%d, %d, %q) = %d, %v; want %d", c.line, c.col, c.symbol, got, err, c.want)
		}
	}
}

func TestConvertKeepsErrorsAndWarnings(t *testing.T) {
	at := func(line uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: line, Character: 4}}
	}
	ds := convert([]protocol.Diagnostic{
		{Range: at(9), Severity: protocol.DiagnosticSeverityWarning, Message: "unused"},
		{Range: at(5), Severity: protocol.DiagnosticSeverityHint, Message: "could be simpler"},
		{Range: at(7), Message: "no severity said", Code: float64(2322)},
		{Range: at(1), Severity: protocol.DiagnosticSeverityInformation, Message: "fyi"},
		{Range: at(3), Severity: protocol.DiagnosticSeverityError, Message: " undefined: x \n"},
	})
	var got []string
	for _, d := range ds {
		got = append(got, d.Text())
	}
	// Errors first (a missing severity counts as one), then warnings;
	// information and hints are left out.
	want := "4:5 error: undefined: x | 8:5 error: no severity said (2322) | 10:5 warning: unused"
	if strings.Join(got, " | ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " | "), want)
	}
}
