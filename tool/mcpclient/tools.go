package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chatrepl/chat/tool"
)

// serverTool is one tool of a connected server, as the model sees it.
type serverTool struct {
	// name is what the model calls it: SERVER__tool, made unique among
	// the server's tools when the cut to 64 bytes made two the same.
	name                        string
	server, remote, description string
	schema                      json.RawMessage
	servers                     *Servers
	allowed                     bool // [mcp.NAME] allow lists it
	timeout                     time.Duration
}

// Name is SERVER__tool, cut to what the API accepts.
func (t *serverTool) Name() string { return t.name }

// ChangesFiles implements tool.FileChanger: what a server's tool does is
// the server's, so it is taken to change files.
func (t *serverTool) ChangesFiles() bool { return true }

// wireName is SERVER__remote in the characters and length tool names may
// have (64 bytes).
func wireName(server, remote string) string {
	var b strings.Builder
	for _, r := range server + "__" + remote {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

func (t *serverTool) Description() string {
	d := strings.TrimSpace(t.description)
	if d == "" {
		d = t.remote
	}
	return d + " (tool of the MCP server " + t.server + ")"
}

func (t *serverTool) Parameters() json.RawMessage { return t.schema }
func (t *serverTool) Timeout() time.Duration      { return t.timeout }

// Review asks for every call unless the server's allow list names the
// tool: what a server does is not known to chat.
func (t *serverTool) Review(_ context.Context, raw json.RawMessage) (tool.Review, error) {
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(raw)
	}
	return tool.Review{
		NeedsApproval: !t.allowed,
		Summary:       fmt.Sprintf("call %s on the MCP server %s", t.remote, t.server),
		Detail:        pretty.String(),
		Grants:        []tool.Grant{{Kind: tool.GrantTool, Value: t.Name()}},
	}, nil
}

func (t *serverTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	c, err := t.servers.live(ctx, t.server)
	if err != nil {
		return "", err
	}
	defer c.track(&ctx)()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: raw})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("MCP server %s: %w", t.server, err)
	}
	text := tool.Truncate(contentText(res), maxOutput)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error"
		}
		return "", errors.New(text)
	}
	return text, nil
}

// contentText renders a result for the model: text as is, other content
// described.
func contentText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, "[resource "+c.Resource.URI+"]")
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// Connector is the mcp_connect tool: it connects a server and adds its
// tools to the calling agent's set. Starting a server runs a program (or
// reaches a URL) the person configured, so it asks no approval; the
// server's tools ask for each call.
type Connector struct {
	tool.Unreviewed
	Servers *Servers
}

func (c *Connector) Name() string { return ConnectName }

// ChangesFiles implements tool.FileChanger: connecting starts a server;
// its tools are checkpointed call by call.
func (c *Connector) ChangesFiles() bool { return false }

func (c *Connector) Description() string {
	return "Connect an MCP server listed in <available_mcps>; its tools become available to you as SERVER__tool."
}

func (c *Connector) Parameters() json.RawMessage {
	return tool.Object([]string{"name"}, map[string]*tool.Schema{"name": tool.Choice("the server", c.Servers.Names())})
}

func (c *Connector) Timeout() time.Duration { return connectTimeout + 5*time.Second }

func (c *Connector) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var args struct{ Name string }
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", err
	}
	tools, err := c.Servers.Connect(ctx, args.Name)
	if err != nil {
		return "", err
	}
	set := tool.SetOf(ctx)
	if set == nil {
		return "", errors.New("mcp_connect runs only inside an agent's turn")
	}
	var names []string
	for _, t := range tools {
		set.Add(t)
		names = append(names, t.Name())
	}
	if len(names) == 0 {
		return args.Name + " is connected but offers no tools.", nil
	}
	return fmt.Sprintf("%s is connected. Its tools, now yours: %s.", args.Name, strings.Join(names, ", ")), nil
}
