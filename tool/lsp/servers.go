package lsp

import (
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Server is a language server chat may start: the command (its first word
// found on PATH when it is not a path), the file extensions it serves and
// the files that mark a project's root for it.
type Server struct {
	Name        string
	Command     []string
	Extensions  []string
	RootMarkers []string
	// Wait bounds how long a check waits for this server's verdict (the
	// Manager's when zero).
	Wait time.Duration
}

// Builtin are the servers chat looks for on PATH without being told.
var Builtin = []Server{
	{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}, RootMarkers: []string{"go.work", "go.mod"}},
	{Name: "typescript", Command: []string{"typescript-language-server", "--stdio"},
		Extensions:  []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
		RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
	{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py", ".pyi"},
		RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}},
	{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
	{Name: "clangd", Command: []string{"clangd"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"},
		RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}},
}

// Configured is a [lsp.NAME] table of the config as this package reads
// it: empty fields keep the built-in server's (of that name) values.
type Configured struct {
	Command     []string
	Extensions  []string
	RootMarkers []string
	Disabled    bool
	Wait        time.Duration
}

// Resolve is the servers of a run: the built-in ones changed by the
// config, and the config's own; a disabled one, or one whose command is
// not found (lookPath, exec.LookPath when nil), is left out. Missing
// names the servers configured by hand whose command was not found.
func Resolve(configured map[string]Configured, lookPath func(string) (string, error)) (servers []Server, missing []string) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	byName := map[string]Server{}
	for _, s := range Builtin {
		byName[s.Name] = s
	}
	names := make([]string, 0, len(configured))
	for n := range configured {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := configured[n]
		s := byName[n]
		s.Name = n
		if c.Disabled {
			delete(byName, n)
			continue
		}
		if len(c.Command) > 0 {
			s.Command = c.Command
		}
		if len(c.Extensions) > 0 {
			s.Extensions = normalExtensions(c.Extensions)
		}
		if c.Wait > 0 {
			s.Wait = c.Wait
		}
		if c.RootMarkers != nil {
			s.RootMarkers = c.RootMarkers
		}
		if len(s.Command) == 0 || len(s.Extensions) == 0 {
			missing = append(missing, n+" (no command or extensions)")
			delete(byName, n)
			continue
		}
		byName[n] = s
	}
	for _, s := range byName {
		path, err := lookPath(s.Command[0])
		if err != nil {
			if _, set := configured[s.Name]; set {
				missing = append(missing, s.Name+" ("+s.Command[0]+" not found)")
			}
			continue
		}
		s.Command = append([]string{path}, s.Command[1:]...)
		servers = append(servers, s)
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	sort.Strings(missing)
	return servers, missing
}

func normalExtensions(in []string) []string {
	out := make([]string, 0, len(in))
	for _, e := range in {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// serves reports whether s takes files named like path.
func (s Server) serves(path string) bool {
	return slices.Contains(s.Extensions, strings.ToLower(filepath.Ext(path)))
}

// languageID is the LSP language id of a file, by its extension.
func languageID(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return "cpp"
	default:
		return strings.TrimPrefix(ext, ".")
	}
}
