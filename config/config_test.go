package config

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/steps"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func ptr[T any](v T) *T { return &v }

func TestPrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("base_url = \"http://file/v1\"\nmodel = \"file-model\"\nmax_steps = 4\nsystem = \"from file\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		env        map[string]string
		flags      Flags
		base, mdl  string
		steps      int
		sys, sbase string
	}{
		{"file only", nil, Flags{}, "http://file/v1", "file-model", 4, "from file", "file"},
		{"env beats file", map[string]string{"OPENAI_BASE_URL": "http://env/v1", "CHAT_MODEL": "env-model"}, Flags{}, "http://env/v1", "env-model", 4, "from file", "env OPENAI_BASE_URL"},
		{"flags beat env", map[string]string{"OPENAI_BASE_URL": "http://env/v1"}, Flags{BaseURL: ptr("http://flag/v1"), Model: ptr("flag-model"), MaxSteps: ptr(0), System: ptr("flag sys")}, "http://flag/v1", "flag-model", 0, "flag sys", "flag --base-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(path, env(tt.env), tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL != tt.base || c.Model != tt.mdl || c.Steps().Max() != tt.steps || c.System != tt.sys || c.Sources["base_url"] != tt.sbase {
				t.Fatalf("%+v", c)
			}
		})
	}
}

func TestDefaultsAndResolve(t *testing.T) {
	t.Parallel()
	c, err := Load(filepath.Join(t.TempDir(), "missing.toml"), env(nil), Flags{})
	if err != nil || c.Steps() != steps.Default {
		t.Fatal(c, err)
	}
	if err := c.Resolve(context.Background()); !errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Fatalf("nothing configured: %v", err)
	}
	c, _ = Load("", env(map[string]string{"OPENAI_API_KEY": "sk-secret"}), Flags{})
	if err := c.Resolve(context.Background()); err != nil || c.BaseURL != OpenAIBaseURL || c.Model == "" {
		t.Fatal(c, err)
	}
	var out bytes.Buffer
	c.Show(&out)
	if strings.Contains(out.String(), "sk-secret") || !strings.Contains(out.String(), "(set, hidden)") {
		t.Fatalf("show:\n%s", out.String())
	}
	c, _ = Load("", env(map[string]string{"OPENAI_BASE_URL": "localhost:8080"}), Flags{})
	if err := c.Resolve(context.Background()); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Fatal(err)
	}
}

func TestAPIKeyCmd(t *testing.T) {
	t.Parallel()
	c := Config{BaseURL: "http://x/v1", APIKeyCmd: "echo sk-from-cmd", Sources: map[string]string{}}
	if err := c.Resolve(context.Background()); err != nil || c.APIKey != "sk-from-cmd" {
		t.Fatal(c.APIKey, err)
	}
	c = Config{BaseURL: "http://x/v1", APIKeyCmd: "echo sk-leak; exit 3", Sources: map[string]string{}}
	if err := c.Resolve(context.Background()); err == nil || strings.Contains(err.Error(), "sk-leak") {
		t.Fatalf("failing command: %v", err)
	}
}

func TestBadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.toml")
	_ = os.WriteFile(path, []byte("modle = \"typo\"\n"), 0o600)
	if _, err := Load(path, env(nil), Flags{}); err == nil || !strings.Contains(err.Error(), `unknown key "modle"`) {
		t.Fatal(err)
	}
	_ = os.WriteFile(path, []byte("model = \n"), 0o600)
	if _, err := Load(path, env(nil), Flags{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatal(err)
	}
	if err := Init(path); err == nil {
		t.Fatal("Init overwrote a file")
	}
	fresh := filepath.Join(t.TempDir(), "sub", "config.toml")
	if err := Init(fresh); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	if _, err := Load(fresh, env(nil), Flags{}); err != nil {
		t.Fatalf("the template does not load: %v", err)
	}
}

// FuzzLoad feeds arbitrary config files: Load never panics, and Show
// never prints a key it read.
func FuzzLoad(f *testing.F) {
	f.Add("model = \"m\"\napi_key = \"sk-secret\"\n[agents.a]\nmax_steps = -1\n[tools]\nallow = [\"x\"]\n")
	f.Add("[[[")
	f.Fuzz(func(t *testing.T, content string) {
		p := filepath.Join(t.TempDir(), "c.toml")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p, env(nil), Flags{})
		if err != nil {
			return
		}
		var out bytes.Buffer
		c.Show(&out)
		if c.APIKey != "" && len(c.APIKey) > 3 && strings.Contains(out.String(), c.APIKey) {
			t.Fatalf("show printed the key %q", c.APIKey)
		}
	})
}

func TestCompactAt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		line  string
		share float64 // -1: not set (the agent's default)
		bad   bool
	}{
		{"", -1, false},
		{"compact_at = 0.7", 0.7, false},
		{"compact_at = 75", 0.75, false},
		{"compact_at = 0", 0, false},
		{"compact_at = 150", 0, true},
		{"compact_at = -0.5", 0, true},
	} {
		path := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path, env(nil), Flags{})
		if (err != nil) != tt.bad {
			t.Fatalf("%q: %v", tt.line, err)
		}
		got := -1.0
		if p := c.CompactShare(); p != nil {
			got = *p
		}
		if err == nil && got != tt.share {
			t.Fatalf("%q: share %v", tt.line, got)
		}
	}
}

// TestMCPTransportShowsNoSecret: how a server is reached, with the names
// of its environment and headers and never their values.
func TestMCPTransportShowsNoSecret(t *testing.T) {
	stdio := MCPConfig{Command: "npx", Args: []string{"-y", "server"}, Env: map[string]string{"TOKEN": "sk-secret"}}
	http := MCPConfig{URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer sk-secret", "X-A": "1"}}
	if got := stdio.Transport(); got != "stdio: npx -y server (TOKEN)" {
		t.Fatalf("stdio: %q", got)
	}
	if got := http.Transport(); got != "http: https://example.com/mcp (Authorization, X-A)" || strings.Contains(got, "secret") {
		t.Fatalf("http: %q", got)
	}
}

func TestLanguageServers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.toml")
	_ = os.WriteFile(path, []byte(`[lsp.gopls]
enabled = false

[lsp.zig]
command = ["zls", "--stdio"]
extensions = ["zig"]
root_markers = ["build.zig"]
wait = "5s"
`), 0o600)
	c, err := Load(path, env(nil), Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if g := c.LSP["gopls"]; g.Enabled == nil || *g.Enabled {
		t.Fatalf("gopls: %+v", g)
	}
	if z := c.LSP["zig"]; strings.Join(z.Command, " ") != "zls --stdio" || z.Extensions[0] != "zig" || z.RootMarkers[0] != "build.zig" || z.Wait != 5*time.Second {
		t.Fatalf("zig: %+v", z)
	}
	_ = os.WriteFile(path, []byte("[lsp.gopls]\ncomand = [\"gopls\"]\n"), 0o600)
	if _, err := Load(path, env(nil), Flags{}); err == nil || !strings.Contains(err.Error(), "comand") {
		t.Fatalf("a misspelt key is not refused: %v", err)
	}
}
