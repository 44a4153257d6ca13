package mcpclient

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/chatrepl/chat/session"
)

// Resource is a resource, or a resource template, of a connected server:
// what @SERVER:URI mentions.
type Resource struct {
	Server, URI, Name, Title, Description, MIMEType string
	// Template is set for a template (URI holds its RFC 6570 form).
	Template bool
	matcher  *uritemplate.Template
}

// Mention is how a person names the resource: @SERVER:URI.
func (r Resource) Mention() string { return "@" + r.Server + ":" + r.URI }

// Label is its title, else its name.
func (r Resource) Label() string { return cmp.Or(r.Title, r.Name) }

// Resources are the resources and templates of the connected servers.
func (s *Servers) Resources() []Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Resource
	for _, name := range s.Names() {
		if c := s.conns[name]; c != nil {
			out = append(out, c.resources...)
		}
	}
	return out
}

// listResources asks a server its resources and templates.
func listResources(ctx context.Context, server string, cs *mcp.ClientSession) ([]Resource, error) {
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
		return nil, nil
	}
	var out []Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing its resources: %w", err)
		}
		out = append(out, Resource{Server: server, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	for t, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing its resource templates: %w", err)
		}
		m, err := uritemplate.New(t.URITemplate)
		if err != nil {
			continue // a template no URI can match is of no use to mention
		}
		out = append(out, Resource{Server: server, URI: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
			MIMEType: t.MIMEType, Template: true, matcher: m})
	}
	return out, nil
}

// IsServer says name is a configured server (so @NAME:… is a resource).
func (s *Servers) IsServer(name string) bool {
	_, ok := s.conf[name]
	return ok
}

// ReadsWithoutAsking says the config lets the server's resources be read
// without asking, as files inside the working directory are.
func (s *Servers) ReadsWithoutAsking(server string) bool { return s.conf[server].ReadResources }

// ParseMention reads "@SERVER:URI" (trailing punctuation left out) when
// SERVER is a configured server.
func (s *Servers) ParseMention(word string) (server, uri string, ok bool) {
	rest, found := strings.CutPrefix(word, "@")
	if !found {
		return "", "", false
	}
	server, uri, found = strings.Cut(rest, ":")
	uri = strings.TrimRight(uri, ",.;!?)\"'")
	if !found || uri == "" || !s.IsServer(server) {
		return "", "", false
	}
	return server, uri, true
}

// Mentions are the @SERVER:URI words of text, each once.
func (s *Servers) Mentions(text string) [][2]string {
	var out [][2]string
	for _, w := range strings.Fields(text) {
		if server, uri, ok := s.ParseMention(w); ok && !slices.Contains(out, [2]string{server, uri}) {
			out = append(out, [2]string{server, uri})
		}
	}
	return out
}

// ReadResource connects the server if need be and reads one of its
// resources as an attachment. The URI must be one the server lists, or
// match one of its templates: what a person typed is never sent as an
// arbitrary read.
func (s *Servers) ReadResource(ctx context.Context, server, uri string) (session.FilePart, error) {
	if strings.IndexFunc(uri, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 || !utf8.ValidString(uri) {
		return session.FilePart{}, fmt.Errorf("@%s:%q is not a URI (it holds spaces or control characters)", server, uri)
	}
	if strings.Contains(uri, "{") {
		return session.FilePart{}, fmt.Errorf("@%s:%s is a template: put values in place of its {…}", server, uri)
	}
	if _, err := s.Connect(ctx, server); err != nil {
		return session.FilePart{}, err
	}
	if !s.offers(server, uri) {
		return session.FilePart{}, fmt.Errorf("@%s:%s is not a resource the MCP server %s lists or a URI its templates make (/mcp lists them)", server, uri, server)
	}
	res, err := reading(ctx, s, server, func(cs *mcp.ClientSession) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	})
	if err != nil && strings.Contains(err.Error(), "exceeded the configured maximum") {
		// The SDK stops reading a message past its frame limit.
		return session.FilePart{}, fmt.Errorf("@%s:%s is larger than an MCP message may be; nothing was attached", server, uri)
	}
	if err != nil {
		return session.FilePart{}, fmt.Errorf("reading @%s:%s: %w", server, uri, err)
	}
	if len(res.Contents) == 0 || res.Contents[0] == nil {
		return session.FilePart{}, fmt.Errorf("@%s:%s: the server returned nothing", server, uri)
	}
	// A resource of several parts (a folder's files) is attached as one
	// text when it is all text.
	if len(res.Contents) > 1 {
		var b strings.Builder
		for _, c := range res.Contents {
			if c == nil || c.Blob != nil {
				return session.FilePart{}, fmt.Errorf("@%s:%s has %d parts, some binary: only a single image or text can be attached", server, uri, len(res.Contents))
			}
			fmt.Fprintf(&b, "--- %s\n%s\n", c.URI, c.Text)
		}
		return resourcePart(&mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: b.String()})
	}
	part, err := resourcePart(res.Contents[0])
	if err != nil {
		return part, fmt.Errorf("@%s:%s: %w", server, uri, err)
	}
	part.Filename = server + ":" + uri
	return part, nil
}

// offers says the server lists uri or one of its templates makes it.
func (s *Servers) offers(server, uri string) bool {
	for _, r := range s.Resources() {
		if r.Server != server {
			continue
		}
		if !r.Template && r.URI == uri || r.Template && r.matcher != nil && r.matcher.Match(uri) != nil {
			return true
		}
	}
	return false
}

// resourcePart is a resource's contents as an attachment, within the
// sizes a file may have.
func resourcePart(c *mcp.ResourceContents) (session.FilePart, error) {
	if c == nil {
		return session.FilePart{}, fmt.Errorf("an empty resource")
	}
	if c.Blob != nil {
		mt := c.MIMEType
		if sniffed := http.DetectContentType(c.Blob); strings.HasPrefix(sniffed, "image/") {
			mt = sniffed
		}
		switch {
		case !strings.HasPrefix(mt, "image/"):
			if utf8.Valid(c.Blob) && !slices.Contains(c.Blob, 0) {
				return resourcePart(&mcp.ResourceContents{URI: c.URI, MIMEType: "text/plain", Text: string(c.Blob)})
			}
			return session.FilePart{}, fmt.Errorf("binary contents (%s); only images and text can be attached", cmp.Or(c.MIMEType, "no type given"))
		case len(c.Blob) > session.MaxImageBytes:
			return session.FilePart{}, fmt.Errorf("an image of %s, over the %s limit", session.SizeText(int64(len(c.Blob))), session.SizeText(session.MaxImageBytes))
		}
		return session.FilePart{MediaType: mt, Filename: c.URI, Data: c.Blob}, nil
	}
	if len(c.Text) > session.MaxTextBytes {
		return session.FilePart{}, fmt.Errorf("%s of text, over the %s limit for an attachment", session.SizeText(int64(len(c.Text))), session.SizeText(session.MaxTextBytes))
	}
	mt := "text/plain"
	if strings.HasPrefix(c.MIMEType, "text/") {
		mt = c.MIMEType
	}
	return session.FilePart{MediaType: mt, Filename: c.URI, Data: []byte(c.Text)}, nil
}
