package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/acp-go-sdk"

	"github.com/chatrepl/chat/internal/mcptest"
	"github.com/chatrepl/chat/internal/oaitest"
)

// The reference MCP server (@modelcontextprotocol/server-everything, from
// npm into testdata/mcp by make test): no one here wrote it.

// everythingConfig is the config of the reference server over stdio, or
// over streamable HTTP (started here) when http.
func everythingConfig(t *testing.T, http bool, extra string) string {
	t.Helper()
	js := mcptest.Everything(t)
	if !http {
		return fmt.Sprintf("[mcp.everything]\ncommand = \"node\"\nargs = [%q, \"stdio\"]\ndescription = \"the reference server\"\n%s", js, extra)
	}
	return fmt.Sprintf("[mcp.everything]\nurl = %q\ndescription = \"the reference server\"\n%s", mcptest.EverythingHTTP(t, js), extra)
}

// echoModel answers with what the last message said, and on "fill the
// form" connects the server and calls its elicitation tool.
func echoModel(t *testing.T) *oaitest.Server {
	srv := oaitest.New(t)
	srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "user" && strings.Contains(last.Text(), "fill the form"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprint("c", req.Index), Name: "mcp_connect", Args: `{"name":"everything"}`}}}
		case last.Role == "tool" && strings.Contains(last.Text(), "is connected"):
			return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprint("e", req.Index), Name: "everything__trigger-elicitation-request", Args: `{}`}}}
		case last.Role == "tool":
			return oaitest.Answer{Text: "the form said: " + strings.Join(strings.Fields(last.Text()), " ")}
		}
		return oaitest.Answer{Text: fmt.Sprintf("got %d bytes", len(last.Text()))}
	})
	return srv
}

// lastUser is the text of the last user message the model was sent.
func lastUser(srv *oaitest.Server) string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Text()
		}
	}
	return ""
}

// TestMCPEverythingPrintMode: print mode runs a server's prompt with
// key=value arguments (over stdio and HTTP), attaches a mentioned
// resource, declines a form and says so; a missing argument, an unknown
// prompt, a template left unfilled and a URI no listing makes are each a
// clear error before anything reaches the model.
func TestMCPEverythingPrintMode(t *testing.T) {
	t.Parallel()
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			t.Parallel()
			srv := echoModel(t)
			home := t.TempDir()
			writeConfig(t, home, everythingConfig(t, overHTTP, "allow = [\"trigger-elicitation-request\"]\n"))
			do := func(args ...string) (string, string, int) {
				return run(t, inHome(t, command(t, srv, args...), home, t.TempDir()))
			}
			if out, errOut, code := do("-p", "/everything:args-prompt city=Lyon state='Auvergne Rhône'"); code != 0 || lastUser(srv) != "What's weather in Lyon, Auvergne Rhône?" {
				t.Fatalf("prompt: exit %d, sent %q\n%s%s", code, lastUser(srv), out, errOut)
			}
			if _, errOut, code := do("-p", "/everything:resource-prompt resourceType=Text resourceId=3"); code != 0 || !strings.Contains(lastUser(srv), "Resource 3") {
				t.Fatalf("embedded resource: exit %d, sent %q\n%s", code, lastUser(srv), errOut)
			}
			doc := "demo://resource/static/document/features.md"
			if _, errOut, code := do("-p", "what does @everything:"+doc+" say?"); code != 0 || !strings.Contains(lastUser(srv), "## Prompts") {
				t.Fatalf("mention: exit %d, sent %q\n%s", code, lastUser(srv), errOut)
			}
			out, errOut, code := do("-p", "fill the form")
			if code != 0 || !strings.Contains(errOut, "the MCP server everything asked for input") || !strings.Contains(errOut, "declined") || !strings.Contains(out, "decline") {
				t.Fatalf("form: exit %d\n%s\n%s", code, out, errOut)
			}
			before := len(srv.Requests())
			for args, want := range map[string]string{
				"/everything:args-prompt":                               "needs city",
				"/everything:no-such":                                   `has no prompt "no-such"`,
				"/everything:args-prompt city=Lyon town=x":              `takes no argument "town"`,
				"@everything:demo://resource/dynamic/text/{resourceId}": "is a template",
				"@everything:file:///etc/passwd":                        "is not a resource",
				"@everything:demo://resource/dynamic/text/../../x":      "is not a resource",
			} {
				_, errOut, code := do("-p", args)
				if code == 0 || !strings.Contains(errOut, want) {
					t.Errorf("%s: exit %d, want %q in:\n%s", args, code, want, errOut)
				}
			}
			if n := len(srv.Requests()); n != before {
				t.Fatalf("a refused input reached the model (%d requests)", n-before)
			}
		})
	}
}

// TestMCPEverythingInTheREPL: in a terminal, Tab on /everything: connects
// the server and lists its prompts; a prompt's missing argument is asked
// and the prompt reaches the model; a mentioned resource asks first, then
// is attached; the server's form is never answered by typing (a sentence
// typed while it is up stays the person's message), and Tab then the keys
// accept it with values, decline it or cancel it; /mcp lists prompts and
// resources.
func TestMCPEverythingInTheREPL(t *testing.T) {
	t.Parallel()
	srv := echoModel(t)
	tm := startTermOpts(t, srv, termOpts{config: everythingConfig(t, false, "allow = [\"trigger-elicitation-request\"]\n"), height: 50})

	tm.typeText("/every")
	tm.keys("Tab")
	tm.waitFor("/everything:args-prompt", 30*time.Second)
	tm.keys("C-u")
	tm.ask("/everything:args-prompt")
	tm.waitFor("needs city", 10*time.Second)
	tm.ask("Lyon")
	tm.waitFor("got 23 bytes", 10*time.Second)
	if got := lastUser(srv); got != "What's weather in Lyon?" {
		t.Fatalf("the prompt sent %q", got)
	}

	tm.ask("what is in @everything:demo://resource/static/document/features.md")
	tm.waitFor("its server's resources are", 10*time.Second)
	tm.keys("Enter")
	tm.waitFor("features.md", 10*time.Second)
	waitUntil(t, "the resource reaches the model", func() bool { return strings.Contains(lastUser(srv), "## Prompts") })

	tm.ask("fill the form")
	tm.waitFor("everything asks: Please provide inputs", 20*time.Second)
	// A sentence typed while the form is up is a message, not an answer.
	tm.typeText("also check this ")
	time.Sleep(500 * time.Millisecond)
	scr := tm.waitFor("tab answers the form", 5*time.Second)
	if !strings.Contains(scr, "also check this") {
		t.Fatalf("the typing went elsewhere:\n%s", scr)
	}
	tm.keys("Tab")
	tm.waitFor("type String below", 5*time.Second)
	tm.typeText("Ada Lovelace")
	tm.keys("Enter")
	for i := 0; i < 12; i++ { // the other fields keep their defaults
		tm.keys("Enter")
	}
	tm.waitFor("[a]ccept  [d]ecline  [c]ancel", 5*time.Second)
	tm.typeText("a")
	tm.waitFor("✓ answered everything: name=Ada Lovelace", 10*time.Second)
	tm.waitFor("the form said:", 10*time.Second)
	waitUntil(t, "the answer reaches the model", func() bool {
		reqs := srv.Requests()
		return strings.Contains(reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Text(), "Ada Lovelace")
	})
	// What the person typed before is back in the input.
	tm.waitFor("also check this", 5*time.Second)
	tm.keys("C-u")

	for _, key := range []string{"d", "c"} {
		tm.ask("fill the form")
		tm.waitFor("tab answers the form", 20*time.Second)
		tm.typeText(key) // alone, not after Tab: typing
		time.Sleep(500 * time.Millisecond)
		if scr := tm.screen(); !strings.Contains(scr, "tab answers the form") {
			t.Fatalf("%q answered the form:\n%s", key, scr)
		}
		// Declining needs no value: ↓ passes the fields unchecked.
		tm.keys("BSpace", "Tab")
		for i := 0; i < 13; i++ {
			tm.keys("Down")
		}
		tm.waitFor("[a]ccept  [d]ecline", 5*time.Second)
		tm.typeText(key)
		want := map[string]string{"d": "decline", "c": "cancel"}[key]
		waitUntil(t, "the "+want+" reaches the model", func() bool {
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Messages
			return strings.Contains(strings.ToLower(last[len(last)-1].Text()), want)
		})
		tm.waitIdle(10 * time.Second)
	}

	tm.ask("/mcp")
	tm.waitFor("prompts: /everything:args-prompt", 5*time.Second)
	tm.waitFor("@everything:demo://resource/static/document/", 5*time.Second)
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second * loadAllowance)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never", what)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// TestMCPEverythingInAnEditor: over ACP, the reference server the editor
// passes offers its prompts as the session's commands; a prompt line
// reaches the model expanded, a mention attaches the resource, and the
// server's form comes to the editor as a permission request that says
// what accepting would send (here it cannot: a required field has no
// default, so only Decline is offered).
func TestMCPEverythingInAnEditor(t *testing.T) {
	t.Parallel()
	js := mcptest.Everything(t)
	srv := echoModel(t)
	base := command(t, srv, "acp")
	e := startEditor(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := e.newSession(ctx, base.Dir, acp.McpServer{Stdio: &acp.McpServerStdio{Name: "everything", Command: "node", Args: []string{js, "stdio"}, Env: []acp.EnvVariable{}}})

	waitUntil(t, "the prompts in the editor's command list", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, u := range e.updates {
			if c := u.AvailableCommandsUpdate; c != nil {
				for _, ac := range c.AvailableCommands {
					if ac.Name == "everything:args-prompt" {
						return true
					}
				}
			}
		}
		return false
	})
	if _, err := e.prompt(ctx, id, acp.TextBlock("/everything:args-prompt city=Lyon")); err != nil || lastUser(srv) != "What's weather in Lyon?" {
		t.Fatalf("prompt: %v, sent %q", err, lastUser(srv))
	}
	if _, err := e.prompt(ctx, id, acp.TextBlock("read @everything:demo://resource/static/document/features.md")); err != nil || !strings.Contains(lastUser(srv), "## Prompts") {
		t.Fatalf("mention: %v", err)
	}
	if _, err := e.prompt(ctx, id, acp.TextBlock("/everything:args-prompt")); err == nil || !strings.Contains(err.Error(), "needs city") {
		t.Fatalf("a missing argument: %v", err)
	}
	from := e.count()
	if _, err := e.prompt(ctx, id, acp.TextBlock("fill the form")); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	titles := strings.Join(e.titles, "\n")
	e.mu.Unlock()
	if !strings.Contains(titles, "The MCP server everything asks: Please provide inputs") || !strings.Contains(strings.ToLower(e.text(from)), "decline") {
		t.Fatalf("titles:\n%s\nanswer: %s", titles, e.text(from))
	}
}
