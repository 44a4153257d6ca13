package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
	"github.com/chatrepl/chat/tool/lsp"
)

// languageServers is the run's language servers, started in the box as
// commands are (nil when none is found or configured); a configured one
// that cannot be found is said once.
func languageServers(env Env, cfg config.Config, shell *tool.Confinement, ls *listener.List) *lsp.Manager {
	conf := map[string]lsp.Configured{}
	for name, c := range cfg.LSP {
		conf[name] = lsp.Configured{Command: c.Command, Extensions: c.Extensions, RootMarkers: c.RootMarkers,
			Disabled: c.Enabled != nil && !*c.Enabled, Wait: c.Wait}
	}
	servers, missing := lsp.Resolve(conf, lookIn(env.Getenv("PATH")))
	for _, m := range missing {
		ls.Warn("language server " + m + "; edits of its files get no diagnostics")
	}
	if len(servers) == 0 {
		return nil
	}
	return &lsp.Manager{Root: shell.Spec.Workdir, Servers: servers, Start: shell.RunServer,
		Notice: func(s string) { ls.Warn(s) }}
}

// lookIn finds a command in the folders of path (the run's PATH, which
// is not always chat's own: an editor's session, a test).
func lookIn(path string) func(string) (string, error) {
	return func(name string) (string, error) {
		if strings.Contains(name, "/") {
			return exec.LookPath(name)
		}
		for _, dir := range filepath.SplitList(path) {
			if dir == "" || !filepath.IsAbs(dir) {
				continue
			}
			if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
	}
}

// withDiagnostics adds the language servers' verdict to the result of a
// call that changed files a server takes: write_file's and edit_file's
// file, what a command (or any other call that may change files) changed
// since the checkpoint before it. The person's hooks run first.
type withDiagnostics struct {
	tool.CallHooks
	lsp *lsp.Manager
	wd  string // the working directory as the model names it
	// changed lists what a call changed since its checkpoint.
	changed func() []string
	tools   func() *tool.Set
	ls      *listener.List
}

func (d withDiagnostics) After(ctx context.Context, name string, args json.RawMessage, res tool.Result) string {
	note := d.CallHooks.After(ctx, name, args, res)
	paths := d.touched(name, args)
	if len(paths) == 0 {
		return note
	}
	rep := d.lsp.Check(ctx, paths)
	files := diagnosticFiles(rep.Files, d.rel)
	if len(files) == 0 && len(rep.Pending) == 0 {
		return note
	}
	text := rep.ForModel(d.rel)
	o, _ := listener.OriginOf(ctx)
	d.ls.Emit(listener.Diagnostics{Origin: o, CallID: tool.CallIDOf(ctx), Files: files,
		Others: rep.Others.Errors, Pending: rep.Pending, ForModel: text})
	if note == "" || text == "" {
		return note + text
	}
	return note + "\n\n" + text
}

// touched are the files a call changed that some server takes.
func (d withDiagnostics) touched(name string, args json.RawMessage) []string {
	var paths []string
	switch name {
	case "write_file", "edit_file":
		var a struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(args, &a) != nil || a.Path == "" {
			return nil
		}
		paths = []string{a.Path}
	default:
		t, ok := d.tools().Lookup(name)
		if ok && !tool.ChangesFiles(t) {
			return nil
		}
		paths = d.changed()
	}
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.wd, p)
		}
		p = d.real(p)
		if d.lsp.Serves(p) {
			out = append(out, p)
		}
	}
	return out
}

// real is p with the working directory's links resolved, as the servers
// (started in the resolved directory) name it.
func (d withDiagnostics) real(p string) string {
	if rel, err := filepath.Rel(d.wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(d.lsp.Root, rel)
	}
	return p
}

// rel names a path as the model knows it: relative to the working directory.
func (d withDiagnostics) rel(p string) string {
	if rel, err := filepath.Rel(d.lsp.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

func diagnosticFiles(files []lsp.File, rel func(string) string) []listener.DiagnosticFile {
	out := make([]listener.DiagnosticFile, 0, len(files))
	for _, f := range files {
		if !f.Fresh {
			continue
		}
		df := listener.DiagnosticFile{Path: rel(f.Path), Server: f.Server}
		for _, dg := range f.Diags {
			if dg.Severity == "error" {
				df.Errors++
			} else {
				df.Warnings++
			}
			if len(df.Lines) < lsp.MaxForModel {
				df.Lines = append(df.Lines, dg.Text())
			}
		}
		out = append(out, df)
	}
	return out
}

// offerNavigation gives the main agent lsp_definition and lsp_references
// once a server runs (its next request offers them; a small window leaves
// them out).
func (r *Run) offerNavigation() func(string) {
	var once sync.Once
	return func(string) {
		once.Do(func() {
			// The run's set (a persona with a list of its own keeps it).
			for _, t := range r.lsp.Tools(r.spec.Env.Workdir) {
				r.tools.Add(t)
			}
		})
	}
}

// ending is the agent's Ending: the diagnostics' delta (nil without servers).
func (r *Run) ending() func(listener.Origin) {
	if r.lsp == nil {
		return nil
	}
	return turnEnding(r.lsp, r.spec.Listeners)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// turnEnding says, as a main turn ends, what it did to the diagnostics
// of the files it touched, and starts the next turn's count.
func turnEnding(m *lsp.Manager, ls *listener.List) func(listener.Origin) {
	return func(o listener.Origin) {
		d, ok := m.TurnDelta()
		m.BeginTurn()
		if !ok {
			return
		}
		ls.Emit(listener.DiagnosticsDelta{Origin: o, ErrorsBefore: d.Before.Errors, ErrorsAfter: d.After.Errors,
			WarningsBefore: d.Before.Warnings, WarningsAfter: d.After.Warnings, Files: d.Files})
	}
}

// DiagnosticsReport is every file's current errors and warnings, for
// /diagnostics: "" when no server runs.
func (r *Run) DiagnosticsReport() string {
	if r.lsp == nil {
		return "no language server is configured or found on PATH (gopls, typescript-language-server, pyright-langserver, rust-analyzer, clangd)"
	}
	running := r.lsp.Running()
	files := r.lsp.Current()
	if len(running) == 0 {
		return "no language server has started yet: one starts at the first edit of a file of its language"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "language servers: %s\n", strings.Join(running, ", "))
	if len(files) == 0 {
		b.WriteString("no errors or warnings")
		return b.String()
	}
	d := withDiagnostics{lsp: r.lsp}
	for _, f := range diagnosticFiles(files, d.rel) {
		fmt.Fprintf(&b, "%s (%s): %d error%s, %d warning%s\n", f.Path, f.Server, f.Errors, plural(f.Errors), f.Warnings, plural(f.Warnings))
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
