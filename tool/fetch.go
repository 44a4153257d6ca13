package tool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/chatrepl/chat/tool/netproxy"
)

// FetchURL gets a web page and returns its readable text. Every fetch
// asks (an "always" answer covers the host), since with free reads in the
// working directory a fetch could carry anything out. Nothing is looked
// up before the person answers (a lookup of <secret>.attacker.example
// would carry the secret out through DNS); the host is resolved once,
// after, and the connection goes to that address, so DNS cannot switch
// it afterwards; an address that is not public which the person was not
// told of asks again (an "always" for the host does not cover a rebind to
// loopback); each redirect is put to the policy again; credentials in a
// URL are never sent.
type FetchURL struct {
	described[fetchURLName]
	MaxBytes int64 // what is read of a body (default 2 MiB)
	// Lookup resolves a host (default: the system's resolver).
	Lookup func(ctx context.Context, host string) ([]net.IPAddr, error)
}

// hostPin is a host and the addresses it resolved to at review.
type hostPin struct {
	hostport string
	ips      []net.IP
}

// Review says when the host is plainly not public; it looks nothing up.
func (f FetchURL) Review(ctx context.Context, raw json.RawMessage) (Review, error) {
	var args struct{ URL string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return Review{}, err
	}
	u, err := parseFetchURL(args.URL)
	if err != nil {
		return Review{}, err
	}
	return reviewURL(u), nil
}

// parseFetchURL accepts http(s) URLs only, and drops any user:password.
func parseFetchURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", redactURL(s))
	}
	u.User = nil
	return u, nil
}

// redactURL hides the user info of a URL that may not parse.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("…")
		return u.String()
	}
	return s
}

func reviewURL(u *url.URL) Review {
	host := u.Hostname()
	pin := &hostPin{hostport: hostPort(u)}
	r := Review{NeedsApproval: true, Summary: "fetch " + u.String(), Target: u.String(), host: pin,
		Grants: []Grant{{Kind: GrantHost, Value: pin.hostport}}}
	switch ip := net.ParseIP(host); {
	case ip != nil:
		pin.ips = []net.IP{ip}
		if kind := localKind(ip); kind != "" {
			// The person's own services (a dev server, a database's HTTP
			// port, the router): theirs to open, each time, --yes or not.
			r.Warning = fmt.Sprintf("%s is %s address: a fetch can reach services that are not public", host, kind)
			r.PersonOnly = cmp.Or(metadataReason(host, ip), r.Warning)
		}
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		r.Warning = host + " is a loopback address: a fetch can reach services that are not public"
		r.PersonOnly = r.Warning
	default:
		r.PersonOnly = metadataReason(host, nil)
	}
	return r
}

// metadataHosts name clouds' instance metadata services, which hand out
// credentials to whatever asks from the machine.
var metadataHosts = []string{"metadata.google.internal", "metadata", "metadata.azure.com", "instance-data", "instance-data.ec2.internal"}

// metadataReason says why a fetch of host (at ip, when known) is the
// person's call each time: a link-local address (169.254.169.254 is every
// major cloud's metadata service) or a metadata service's name. "" when
// it is not.
func metadataReason(host string, ip net.IP) string {
	switch {
	case ip != nil && (ip.IsLinkLocalUnicast() || ip.Equal(net.ParseIP("fd00:ec2::254"))):
		return host + " is a link-local address, where cloud metadata services hand out credentials"
	case slices.Contains(metadataHosts, strings.ToLower(strings.TrimSuffix(host, "."))):
		return host + " is a cloud metadata service, which hands out credentials"
	}
	return ""
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// resolve finds where an approved review's host is, once. An address
// that is not public, when the person was not told of one, is put to the
// policy again under its own grant.
func (f FetchURL) resolve(ctx context.Context, u *url.URL, rv Review) (*hostPin, error) {
	if rv.host != nil && len(rv.host.ips) > 0 {
		return rv.host, nil
	}
	lookup := f.Lookup
	if lookup == nil {
		lookup = net.DefaultResolver.LookupIPAddr
	}
	host := u.Hostname()
	addrs, err := lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("GET %s: cannot resolve %s: %v", u, host, err)
	}
	pin := &hostPin{hostport: hostPort(u)}
	for _, a := range addrs {
		pin.ips = append(pin.ips, a.IP)
	}
	if rv.Warning != "" {
		return pin, nil
	}
	for _, ip := range pin.ips {
		if kind := localKind(ip); kind != "" {
			again := Review{NeedsApproval: true, Summary: "fetch " + u.String(), Target: u.String(),
				Warning:    fmt.Sprintf("%s resolves to %s address (%s): a fetch can reach services that are not public", host, kind, ip),
				Grants:     []Grant{{Kind: GrantHost, Value: pin.hostport + " at " + strings.TrimPrefix(kind, "a ") + " address"}},
				PersonOnly: cmp.Or(metadataReason(host+" ("+ip.String()+")", ip), host+" is "+kind+" address")}
			if err := Authorize(ctx, again); err != nil {
				return nil, err
			}
			break
		}
	}
	return pin, nil
}

// localKind names an address that is not on the public internet.
func localKind(ip net.IP) string { return netproxy.AddrKind(ip) }

// pins are the hosts a fetch may connect to, and where.
type pins struct {
	mu sync.Mutex
	m  map[string][]net.IP
}

func (p *pins) add(h *hostPin) {
	p.mu.Lock()
	p.m[h.hostport] = h.ips
	p.mu.Unlock()
}

func (p *pins) has(u *url.URL) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[hostPort(u)] != nil
}

func (p *pins) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	p.mu.Lock()
	ips := p.m[addr]
	p.mu.Unlock()
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s was not approved", addr)
	}
	_, port, _ := net.SplitHostPort(addr)
	var d net.Dialer
	var err error
	for _, ip := range ips {
		var c net.Conn
		if c, err = d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port)); err == nil {
			return c, nil
		}
	}
	return nil, err
}

func (f FetchURL) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct{ URL string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	u, err := parseFetchURL(args.URL)
	if err != nil {
		return "", err
	}
	rv, ok := Reviewed(ctx)
	if !ok || rv.host == nil {
		rv = reviewURL(u)
	}
	pin, err := f.resolve(ctx, u, rv)
	if err != nil {
		return "", err
	}
	pinned := &pins{m: map[string][]net.IP{}}
	pinned.add(pin)
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: pinned.dial, TLSHandshakeTimeout: 10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			req.URL.User = nil
			req.Header.Del("Authorization")
			if pinned.has(req.URL) {
				return nil // a host this call was already allowed to reach
			}
			next := reviewURL(req.URL)
			if err := Authorize(ctx, next); err != nil {
				return fmt.Errorf("the redirect to %s was refused: %w", req.URL, err)
			}
			pin, err := f.resolve(ctx, req.URL, next)
			if err != nil {
				return fmt.Errorf("the redirect to %s was refused: %w", req.URL, err)
			}
			pinned.add(pin)
			return nil
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", "chat (terminal LLM client; fetch_url tool)")
	req.Header.Set("Accept", "text/html, text/plain, application/json, */*;q=0.5")
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
	return Truncate(text, 64<<10), nil
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
