// Package mcpclient makes the tools of MCP servers chat tools. Servers are
// advertised by name and description (<available_mcps>) and connected
// lazily: when the model calls mcp_connect, or at start for eager ones.
// A connected server's tools join the calling agent's set as NAME__tool
// with the server's schemas, and go through the same Dispatch as every
// tool: the approval policy (they ask unless allowed), timeouts,
// cancellation (a cancelled call sends MCP's notifications/cancelled),
// output bounds. Close stops every server process.
//
// It must not decide approvals itself or talk to the model.
package mcpclient
