package web

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/chatrepl/chat/listener"
)

// markdown renders a model's Markdown as HTML the page may insert: raw
// HTML in it is shown as the text it is (not dropped: a model that writes
// "<div>" in prose loses nothing), code is highlighted with
// classes (the page's CSP allows no inline style), and what is left goes
// through bluemonday (no script, no event handler, no javascript: link).
var markdown = sync.OnceValue(func() func(string) string {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))),
	)
	policy := bluemonday.UGCPolicy()
	policy.AllowAttrs("class").Matching(regexp.MustCompile(`^[a-zA-Z0-9 _-]+$`)).OnElements("span", "pre", "code", "div")
	policy.RequireNoFollowOnLinks(true)
	policy.AddTargetBlankToFullyQualifiedLinks(true)
	return func(text string) string {
		var b bytes.Buffer
		if err := md.Convert([]byte(listener.String(text)), &b); err != nil {
			return "<pre>" + html.EscapeString(text) + "</pre>"
		}
		return policy.Sanitize(b.String())
	}
})

// Markdown is text as safe HTML.
func Markdown(text string) string { return markdown()(text) }

// codeRenderer highlights fenced code blocks with chroma's classes.
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockAsText)
	reg.Register(ast.KindRawHTML, renderRawHTMLAsText)
}

// renderHTMLBlockAsText shows a block of HTML as a paragraph of its text.
func renderHTMLBlockAsText(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	var text strings.Builder
	for i := 0; i < b.Lines().Len(); i++ {
		line := b.Lines().At(i)
		text.Write(line.Value(source))
	}
	if b.HasClosure() {
		text.Write(b.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(strings.TrimRight(text.String(), "\n")), "\n", "<br>\n") + "</p>\n")
	return ast.WalkSkipChildren, nil
}

// renderRawHTMLAsText shows inline HTML as its text.
func renderRawHTMLAsText(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
	}
	return ast.WalkSkipChildren, nil
}

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))

func renderFencedCode(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	block := n.(*ast.FencedCodeBlock)
	var code strings.Builder
	for i := 0; i < block.Lines().Len(); i++ {
		line := block.Lines().At(i)
		code.Write(line.Value(source))
	}
	lexer := lexers.Fallback
	if lang := string(block.Language(source)); lang != "" {
		if l := lexers.Get(lang); l != nil {
			lexer = l
		}
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, code.String())
	if err == nil {
		err = codeFormatter.Format(w, styles.Fallback, it)
	}
	if err != nil {
		_, _ = w.WriteString("<pre><code>" + html.EscapeString(code.String()) + "</code></pre>")
	}
	return ast.WalkSkipChildren, nil
}

// codeCSS is the highlighting's style sheet: light, and dark where the
// person's system is.
var codeCSS = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	_ = codeFormatter.WriteCSS(&b, styles.Get("github"))
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	_ = codeFormatter.WriteCSS(&b, styles.Get("github-dark"))
	b.WriteString("}\n")
	return b.Bytes()
})
