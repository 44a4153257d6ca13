// Package mcpclient is chat's MCP client (the official go-sdk). Servers
// are advertised by name and description (<available_mcps>) and connected
// lazily: when the model calls mcp_connect, at start for eager ones, or
// when the person names one (a prompt, a resource, a completion). A
// connected server's tools join the calling agent's set as NAME__tool
// with the server's schemas, and go through the same Dispatch as every
// tool: the approval policy (they ask unless allowed), timeouts,
// cancellation (a cancelled call sends MCP's notifications/cancelled),
// output bounds. Besides tools it owns the rest of the protocol a client
// takes part in: prompts (expanded into a user message, bounded),
// resources and templates (read only when listed or made by a template,
// bounded like attachments), list_changed, roots (the working
// directory), elicitation (handed to the front end's Elicitor, declined
// without one), and OAuth for HTTP servers (Login, tokens kept 0600 and
// renewed). A connection that ends is made again at the next use. Close
// stops every server process.
//
// It must not decide approvals itself, talk to the model, or ask the
// person anything but through the Elicitor and the LoginUI it is given.
package mcpclient
