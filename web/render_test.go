package web

import (
	"strings"
	"testing"
)

func TestMarkdownIsSafeHTML(t *testing.T) {
	for _, bad := range []string{
		"<script>window.__pwned=1</script>",
		"<img src=x onerror=\"window.__pwned=1\">",
		"[click](javascript:window.__pwned=1)",
		"<svg onload=\"window.__pwned=1\"></svg>",
		"\x1b[31mred\x1b[0m",
	} {
		out := Markdown("hello " + bad)
		for _, sign := range []string{"<script", "<img", "href=\"javascript", "<svg", "\x1b"} {
			if strings.Contains(strings.ToLower(out), sign) {
				t.Errorf("%q rendered as %q (has %q)", bad, out, sign)
			}
		}
	}
	if out := Markdown("a <div>block</div> in prose"); !strings.Contains(out, "&lt;div&gt;block&lt;/div&gt;") {
		t.Errorf("raw HTML is not shown as text: %q", out)
	}
	if out := Markdown("<script>alert(1)</script>\nafter"); !strings.Contains(out, "&lt;script&gt;") || !strings.Contains(out, "after") {
		t.Errorf("an HTML block is not shown as text: %q", out)
	}
	out := Markdown("**bold** and\n\n```go\nfunc main() {}\n```\n")
	if !strings.Contains(out, "<strong>bold</strong>") || !strings.Contains(out, `class="chroma"`) || !strings.Contains(out, "func") {
		t.Errorf("rendered %q", out)
	}
}
