package lsp

import (
	"context"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// tsserverRequest is the command typescript-language-server offers to
// pass a request to its tsserver. It publishes a file's syntax, types
// and suggestions apart, each only when it changed, and names no version:
// nothing it pushes says the check has ended (an edit that changes no
// diagnostic is followed by no publish at all), so chat asks tsserver
// for the file's verdict, which it answers once it has checked the file.
const tsserverRequest = "typescript.tsserverRequest"

// tsDiagnostic is one of tsserver's diagnostics (lines and offsets from 1).
type tsDiagnostic struct {
	Start    struct{ Line, Offset uint32 } `json:"start"`
	End      struct{ Line, Offset uint32 } `json:"end"`
	Text     string                        `json:"text"`
	Code     int                           `json:"code"`
	Category string                        `json:"category"`
	Source   string                        `json:"source"`
}

// asksTsserver reports whether the server offered tsserverRequest.
func asksTsserver(caps protocol.ServerCapabilities) bool {
	return caps.ExecuteCommandProvider != nil && slices.Contains(caps.ExecuteCommandProvider.Commands, tsserverRequest)
}

// pullTsserver asks tsserver for path's syntax and type errors (sent as
// version v) and keeps them as the server's word on the file, as if it
// had published them: a publish after this replaces it, as any does.
func (c *conn) pullTsserver(ctx context.Context, path string, v int32) error {
	var all []protocol.Diagnostic
	for _, kind := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var resp struct {
			Success bool           `json:"success"`
			Message string         `json:"message"`
			Body    []tsDiagnostic `json:"body"`
		}
		params := protocol.ExecuteCommandParams{Command: tsserverRequest,
			Arguments: []any{kind, map[string]any{"file": string(uri.File(path))}}}
		if _, err := c.rpc.Call(ctx, protocol.MethodWorkspaceExecuteCommand, params, &resp); err != nil {
			return err
		}
		if !resp.Success {
			return fmt.Errorf("tsserver's %s: %s", kind, resp.Message)
		}
		for _, d := range resp.Body {
			all = append(all, d.protocol())
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[path] != v {
		return nil // a newer sync is in flight: its own check keeps its verdict
	}
	c.keepLocked(path, v, all)
	return nil
}

func (d tsDiagnostic) protocol() protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	switch d.Category {
	case "warning":
		sev = protocol.DiagnosticSeverityWarning
	case "suggestion":
		sev = protocol.DiagnosticSeverityHint
	case "message":
		sev = protocol.DiagnosticSeverityInformation
	}
	pos := func(line, offset uint32) protocol.Position {
		return protocol.Position{Line: max(line, 1) - 1, Character: max(offset, 1) - 1}
	}
	src := d.Source
	if src == "" {
		src = "typescript"
	}
	return protocol.Diagnostic{Range: protocol.Range{Start: pos(d.Start.Line, d.Start.Offset), End: pos(d.End.Line, d.End.Offset)},
		Severity: sev, Code: d.Code, Source: src, Message: d.Text}
}
