package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/chatrepl/chat/internal/atomicfile"
)

// The config file edits `chat mcp add|rm` make. They keep every other line
// (comments too) as it was, and replace the file atomically, private to
// the person.

// AddMCP appends [mcp.NAME] to the file at path (created when missing).
func AddMCP(path, name string, m MCPConfig) error {
	if err := CheckMCP(name, m); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var have Config
	if _, err := toml.Decode(string(old), &have); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, dup := have.MCP[name]; dup {
		return fmt.Errorf("%s already has an MCP server %q; chat mcp rm %s first", path, name, name)
	}
	var block bytes.Buffer
	if err := toml.NewEncoder(&block).Encode(map[string]map[string]MCPConfig{"mcp": {name: m}}); err != nil {
		return err
	}
	// The encoder opens with the parent table [mcp]: a second add would
	// define it twice (invalid), and rm would leave it behind.
	entry := strings.TrimPrefix(block.String(), "[mcp]\n")
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return atomicfile.Write(path, []byte(text+"\n"+entry), 0o600)
}

// RemoveMCP takes [mcp.NAME] (and its sub-tables) out of the file at path.
func RemoveMCP(path, name string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, found := withoutTable(string(old), "mcp."+name)
	if !found {
		return fmt.Errorf("%s has no [mcp.%s]", path, name)
	}
	var check Config
	if _, err := toml.Decode(text, &check); err != nil || check.MCP[name].Command != "" || check.MCP[name].URL != "" {
		return fmt.Errorf("could not remove [mcp.%s] from %s cleanly; edit it by hand", name, path)
	}
	return atomicfile.Write(path, []byte(text), 0o600)
}

// withoutTable removes the table [name] and its sub-tables ([name.env],
// …) from a TOML text; comments and every other line stay as they were.
func withoutTable(text, name string) (string, bool) {
	var out []string
	skipping, found := false, false
	for _, line := range strings.SplitAfter(text, "\n") {
		if h, ok := tableHeader(line); ok {
			skipping = h == name || strings.HasPrefix(h, name+".")
			found = found || skipping
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return strings.Join(out, ""), found
}

func tableHeader(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(l, "[") || strings.HasPrefix(l, "[[") {
		return "", false
	}
	end := strings.IndexByte(l, ']')
	if end < 0 {
		return "", false
	}
	parts := strings.Split(l[1:end], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, "."), true
}
