package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatrepl/chat/internal/clip"
	"github.com/chatrepl/chat/tool"
)

// Tools are lsp_definition and lsp_references, for a run whose servers
// run: read-only, inside the workspace (wd is where relative paths start).
func (m *Manager) Tools(wd string) []tool.Tool {
	return []tool.Tool{
		navTool{m: m, wd: wd, name: "lsp_definition", desc: "Find where a symbol is defined, as the language server knows it (types, functions, imports across packages). Give the file, the line and the symbol's name on it."},
		navTool{m: m, wd: wd, name: "lsp_references", desc: "Find every use of a symbol in the project, as the language server knows it. Give the file, the line and the symbol's name on it."},
	}
}

type navTool struct {
	tool.Unreviewed
	m          *Manager
	wd         string
	name, desc string
}

var navParams = json.RawMessage(`{"type":"object","properties":{` +
	`"path":{"type":"string","description":"file path, relative to the working directory"},` +
	`"line":{"type":"integer","description":"1-based line the symbol is on"},` +
	`"symbol":{"type":"string","description":"the symbol's name as written on that line"},` +
	`"column":{"type":"integer","description":"1-based column, instead of symbol"}},` +
	`"required":["path","line"]}`)

func (t navTool) Name() string                { return t.name }
func (t navTool) Description() string         { return t.desc }
func (t navTool) Parameters() json.RawMessage { return navParams }
func (t navTool) Timeout() time.Duration      { return 30 * time.Second }

// ChangesFiles implements tool.FileChanger: it only asks.
func (navTool) ChangesFiles() bool { return false }

// Brief implements tool.Briefer: left out where the window is small.
func (navTool) Brief() (string, json.RawMessage, bool) { return "", nil, false }

// Concurrent implements tool.Concurrent: questions may run together.
func (navTool) Concurrent() bool { return true }

func (t navTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
		Symbol string `json:"symbol"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", err
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.wd, p)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if !within(t.m.Root, p) {
		return "", fmt.Errorf("%s is outside the working directory", a.Path)
	}
	ask := t.m.Definition
	if t.name == "lsp_references" {
		ask = t.m.References
	}
	locs, err := ask(ctx, p, a.Line, a.Column, a.Symbol)
	if errors.Is(err, ErrNoServer) {
		return "", fmt.Errorf("%s: %w", a.Path, err)
	}
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "nothing found", nil
	}
	var b strings.Builder
	for _, l := range locs {
		name := l.Path
		if rel, err := filepath.Rel(t.m.Root, l.Path); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
		// Only the workspace's lines are read: a location is the server's
		// word, and the server is project code's.
		text := ""
		if within(t.m.Root, l.Path) {
			text = lineOf(l.Path, l.Line)
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", name, l.Line, l.Column, text)
	}
	if len(locs) == maxLocations {
		fmt.Fprintf(&b, "(the first %d)\n", maxLocations)
	}
	return b.String(), nil
}

// lineOf is the text of line n of path (trimmed, cut), "" when unreadable.
func lineOf(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return clip.String(strings.TrimSpace(lines[n-1]), 160)
}
