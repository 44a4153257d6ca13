package mcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/tool"
)

// TestEverythingServer: against the reference server (stdio and HTTP),
// prompts with arguments expand into a message, resources and templates
// are listed and read (a URI no listing or template makes is refused),
// list_changed refreshes the list, the roots are the working directory
// and follow SetRoot, and a form is answered by the Elicitor (accept
// with values, decline, cancel).
func TestEverythingServer(t *testing.T) {
	js := mcptest.Everything(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := config.MCPConfig{Command: "node", Args: []string{js, "stdio"}}
			if transport == "http" {
				cfg = config.MCPConfig{URL: mcptest.EverythingHTTP(t, js)}
			}
			cfg.Allow = []string{"get-roots-list", "trigger-elicitation-request", "gzip-file-as-resource"}
			work := t.TempDir()
			servers := New(map[string]config.MCPConfig{"everything": cfg}, os.Getenv, work)
			t.Cleanup(func() { _ = servers.Close() })
			ctx := context.Background()
			if _, err := servers.Connect(ctx, "everything"); err != nil {
				t.Fatal(err)
			}

			p, ok := servers.Prompt("everything", "args-prompt")
			if !ok || len(p.Missing(nil)) != 1 || p.Missing(nil)[0].Name != "city" {
				t.Fatalf("args-prompt: %+v %v", p, ok)
			}
			if _, err := servers.GetPrompt(ctx, "everything", "args-prompt", nil); err == nil || !strings.Contains(err.Error(), "needs city") {
				t.Fatalf("a missing argument: %v", err)
			}
			exp, err := servers.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Lyon", "state": "Rhône"})
			if err != nil || exp.Text != "What's weather in Lyon, Rhône?" {
				t.Fatalf("args-prompt: %+v %v", exp, err)
			}
			exp, err = servers.GetPrompt(ctx, "everything", "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "2"})
			if err != nil || len(exp.Files) != 1 || !strings.Contains(exp.Text, "id: 2") || len(exp.Files[0].Data) == 0 {
				t.Fatalf("resource-prompt: %+v %v", exp, err)
			}

			var template, static string
			for _, r := range servers.Resources() {
				if r.Template && strings.Contains(r.URI, "dynamic/text") {
					template = r.URI
				}
				if !r.Template && strings.Contains(r.URI, "static/document") {
					static = r.URI
				}
			}
			if template == "" || static == "" {
				t.Fatalf("resources: %+v", servers.Resources())
			}
			part, err := servers.ReadResource(ctx, "everything", static)
			if err != nil || len(part.Data) == 0 || part.Filename != "everything:"+static {
				t.Fatalf("read %s: %+v %v", static, part.Filename, err)
			}
			uri := strings.Replace(template, "{resourceId}", "7", 1)
			if part, err = servers.ReadResource(ctx, "everything", uri); err != nil || !strings.Contains(string(part.Data), "7") {
				t.Fatalf("read %s: %q %v", uri, part.Data, err)
			}
			for _, hostile := range []string{template, "file:///etc/passwd", strings.Replace(template, "{resourceId}", "../../etc/passwd", 1), "demo://resource/dynamic/text/1\x1b]52;c;aGk=\a"} {
				if _, err := servers.ReadResource(ctx, "everything", hostile); err == nil {
					t.Errorf("%q was read", hostile)
				}
			}

			set := tool.NewSet(&Connector{Servers: servers})
			if res := set.Dispatch(ctx, ConnectName, `{"name":"everything"}`); res.Err != nil {
				t.Fatal(res.Err)
			}
			call := func(name, args string) string {
				t.Helper()
				res := set.Dispatch(ctx, "everything__"+name, args)
				if res.Err != nil {
					t.Fatalf("%s: %v", name, res.Err)
				}
				return res.Content
			}
			if out := call("get-roots-list", `{}`); !strings.Contains(out, "file://"+filepath.ToSlash(work)) {
				t.Fatalf("roots: %s", out)
			}
			other := t.TempDir()
			servers.SetRoot(other)
			waitFor(t, "the new root", func() bool { return strings.Contains(call("get-roots-list", `{}`), "file://"+filepath.ToSlash(other)) })

			// A resource the server registers mid-session reaches the list.
			call("gzip-file-as-resource", `{"name":"note.gz","data":"data:text/plain;base64,aGVsbG8="}`)
			waitFor(t, "the new resource", func() bool {
				for _, r := range servers.Resources() {
					if strings.HasSuffix(r.URI, "/note.gz") {
						return true
					}
				}
				return false
			})

			var mu sync.Mutex
			var asked []Elicitation
			answer := Answer{Action: "accept", Values: map[string]string{"name": "Ada Lovelace", "check": "yes", "email": "ada@example.com",
				"integer": "7", "untitledSingleSelectEnum": "Joey", "untitledMultipleSelectEnum": "Piano, Drums", "titledSingleSelectEnum": "Wonder Woman"}}
			servers.SetElicitor(func(_ context.Context, e Elicitation) (Answer, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, e)
				return answer, nil
			})
			out := call("trigger-elicitation-request", `{}`)
			for _, want := range []string{"Ada Lovelace", "ada@example.com", `"Piano"`, `"hero-3"`, `"integer": 7`} {
				if !strings.Contains(out, want) {
					t.Errorf("accepted: %q not in %s", want, out)
				}
			}
			mu.Lock()
			if len(asked) != 1 || asked[0].Server != "everything" || len(asked[0].Fields) < 8 {
				t.Fatalf("asked: %+v", asked)
			}
			answer = Answer{Action: "decline"}
			mu.Unlock()
			if out := call("trigger-elicitation-request", `{}`); !strings.Contains(strings.ToLower(out), "decline") {
				t.Errorf("declined: %s", out)
			}
			mu.Lock()
			answer = Answer{Action: "cancel"}
			mu.Unlock()
			if out := call("trigger-elicitation-request", `{}`); !strings.Contains(strings.ToLower(out), "cancel") {
				t.Errorf("cancelled: %s", out)
			}
		})
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never came", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
