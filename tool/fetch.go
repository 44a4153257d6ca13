package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// FetchURL gets a web page and returns its readable text.
type FetchURL struct {
	Client   *http.Client // nil: a client with the tool's timeout
	MaxBytes int64        // what is read of a body (default 2 MiB)
}

func (FetchURL) Name() string { return "fetch_url" }
func (FetchURL) Description() string {
	return "Fetch a web page or text file over http(s) with GET and return its text (HTML reduced to readable text)."
}
func (FetchURL) Parameters() json.RawMessage {
	return Object([]string{"url"}, map[string]*Schema{"url": Prop("string", "http or https URL")})
}
func (FetchURL) Timeout() time.Duration { return 30 * time.Second }

func (f FetchURL) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct{ URL string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	u, err := url.Parse(args.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", args.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "chat (terminal LLM client; fetch_url tool)")
	req.Header.Set("Accept", "text/html, text/plain, application/json, */*;q=0.5")
	client := f.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	limit := f.MaxBytes
	if limit <= 0 {
		limit = 2 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", fmt.Errorf("GET %s: reading the body: %v", u, err)
	}
	cut := int64(len(body)) > limit
	if cut {
		body = body[:limit]
	}
	if resp.StatusCode >= 400 {
		return "", fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var text string
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && strings.Contains(strings.ToLower(string(body[:min(len(body), 512)])), "<html")):
		text = htmlText(string(body))
	case strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml") || mt == "":
		if !utf8.Valid(body) {
			return "", fmt.Errorf("GET %s: the body is not text (%s)", u, mt)
		}
		text = string(body)
	default:
		return "", fmt.Errorf("GET %s: %s is not text; fetch_url only returns text", u, mt)
	}
	if cut {
		text += fmt.Sprintf("\n[body cut at %d bytes]", limit)
	}
	return truncate(text, 64<<10), nil
}

// htmlText keeps the readable text of a page: no scripts, styles or
// navigation chrome, one block per line.
func htmlText(doc string) string {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return doc
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "svg", "nav", "footer", "head", "iframe", "form":
				return
			}
		}
		if n.Type == html.TextNode {
			if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
				b.WriteString(t + " ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "section", "article", "blockquote", "title":
				b.WriteString("\n")
			}
		}
	}
	walk(root)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
