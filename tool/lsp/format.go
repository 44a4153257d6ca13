package lsp

import (
	"fmt"
	"strings"
)

// MaxForModel bounds the diagnostics one tool result carries.
const MaxForModel = 20

// Text is d as one line: "12:5 error: undefined: x (compiler)".
func (d Diagnostic) Text() string {
	msg := strings.Join(strings.Fields(d.Message), " ")
	src := d.Source
	if d.Code != "" {
		src = strings.TrimSpace(src + " " + d.Code)
	}
	if src != "" {
		msg += " (" + src + ")"
	}
	return fmt.Sprintf("%d:%d %s: %s", d.Line, d.Column, d.Severity, msg)
}

// ForModel is what a tool result gets of r ("" when there is nothing to
// say: every file clean, or no server took one). rel names a path as
// the model knows it.
func (r Report) ForModel(rel func(string) string) string {
	var body strings.Builder
	var servers []string
	shown, total := 0, 0
	for _, f := range r.Files {
		if !f.Fresh {
			continue
		}
		for _, d := range f.Diags {
			total++
			servers = appendOnce(servers, f.Server)
			if shown < MaxForModel {
				fmt.Fprintf(&body, "%s:%s\n", rel(f.Path), d.Text())
				shown++
			}
		}
	}
	if total > shown {
		fmt.Fprintf(&body, "… and %d more\n", total-shown)
	}
	if r.Others.Errors > 0 {
		fmt.Fprintf(&body, "%d error%s in %d other file%s\n", r.Others.Errors, plural(r.Others.Errors), r.OtherFiles, plural(r.OtherFiles))
	}
	if body.Len() == 0 {
		if len(r.Pending) > 0 && len(r.Files) > 0 {
			return fmt.Sprintf("[%s gave no diagnostics yet for this change]", strings.Join(r.Pending, ", "))
		}
		return ""
	}
	head := "[diagnostics after this change"
	if len(servers) > 0 {
		head += " (" + strings.Join(servers, ", ") + ")"
	}
	return head + ":\n" + body.String() + "]"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
