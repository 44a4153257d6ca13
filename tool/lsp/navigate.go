package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Location is a place a server pointed to.
type Location struct {
	Path         string
	Line, Column int // 1-based
}

// maxLocations bounds what one navigation call returns.
const maxLocations = 50

// ErrNoServer means no running server takes the file.
var ErrNoServer = errors.New("no language server runs for this file")

// Definition asks the file's server where the symbol at line and column
// (1-based; column 0: the first occurrence of symbol on the line) is
// defined.
func (m *Manager) Definition(ctx context.Context, path string, line, column int, symbol string) ([]Location, error) {
	return m.navigate(ctx, path, line, column, symbol, func(c *conn, pos protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
		return c.remote.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: pos})
	})
}

// References asks the file's server where the symbol is used (its
// declaration included).
func (m *Manager) References(ctx context.Context, path string, line, column int, symbol string) ([]Location, error) {
	return m.navigate(ctx, path, line, column, symbol, func(c *conn, pos protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
		return c.remote.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: pos,
			Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	})
}

func (m *Manager) navigate(ctx context.Context, path string, line, column int, symbol string,
	ask func(*conn, protocol.TextDocumentPositionParams) ([]protocol.Location, error)) ([]Location, error) {
	path = filepath.Clean(path)
	s, ok := m.serverFor(path)
	if !ok || !within(m.Root, path) {
		return nil, ErrNoServer
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	col, err := position(text, line, column, symbol)
	if err != nil {
		return nil, err
	}
	root := m.rootFor(s, path)
	c := m.connFor(ctx, s, root, s.Name+"\x00"+root)
	if c == nil {
		return nil, ErrNoServer
	}
	c.mu.Lock()
	_, isOpen := c.open[path]
	c.mu.Unlock()
	if !isOpen {
		if _, _, err := c.sync(ctx, path); err != nil {
			return nil, err
		}
	}
	locs, err := ask(c, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)},
		Position: protocol.Position{Line: uint32(line - 1), Character: uint32(col)}})
	if err != nil {
		return nil, err
	}
	out := make([]Location, 0, min(len(locs), maxLocations))
	for _, l := range locs {
		if len(out) == maxLocations {
			break
		}
		out = append(out, Location{Path: l.URI.Filename(), Line: int(l.Range.Start.Line) + 1, Column: int(l.Range.Start.Character) + 1})
	}
	return out, nil
}

// position is the 0-based character of column (1-based) on line, or of
// symbol's first whole occurrence there. LSP counts UTF-16 units; the
// line's text before the column is counted so.
func position(text []byte, line, column int, symbol string) (int, error) {
	lines := bytes.Split(text, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0, fmt.Errorf("line %d is outside the file (%d lines)", line, len(lines))
	}
	l := string(lines[line-1])
	byteCol := column - 1
	if column <= 0 {
		if symbol == "" {
			return 0, errors.New("give column or symbol")
		}
		i := strings.Index(l, symbol)
		if i < 0 {
			return 0, fmt.Errorf("%q is not on line %d: %q", symbol, line, strings.TrimSpace(l))
		}
		byteCol = i
	}
	if byteCol > len(l) {
		return 0, fmt.Errorf("column %d is past the end of line %d", column, line)
	}
	units := 0
	for _, r := range l[:byteCol] {
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return units, nil
}
