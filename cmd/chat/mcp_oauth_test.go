package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/internal/oauthtest"
)

// TestMCPOAuthThroughTheBinary: as root and as an ordinary user, a server
// that requires OAuth says to log in; `chat mcp login` opens $BROWSER on
// the authorization URL (a script that follows it, as a browser with
// consent given would), keeps the tokens 0600 under the user's state
// folder (not in the config), and the server's tools then work; a
// revoked login says to log in again; `chat mcp logout` forgets it.
func TestMCPOAuthThroughTheBinary(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			as := oauthtest.New(t, "")
			srv := oaitest.New(t)
			srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
				if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
					return oaitest.Answer{Text: "the server said: " + last.Text()}
				}
				return oaitest.Answer{Calls: []oaitest.Call{{ID: fmt.Sprint("e", req.Index), Name: "t__echo", Args: `{"text":"behind a login"}`}}}
			})
			r := newUserRun(t, u, srv)
			browser := filepath.Join(r.home, "browser")
			if err := os.WriteFile(browser, []byte(followingBrowser), 0o755); err != nil {
				t.Fatal(err)
			}
			writeConfig(t, r.home, fmt.Sprintf("[mcp.t]\nurl = %q\neager = true\nallow = [\"echo\"]\n", as.URL()))
			asuser.Give(t, u, r.home)
			chat := func(args ...string) (string, string, int) {
				cmd := r.command(args...)
				cmd.Env = append(cmd.Env, "BROWSER="+browser)
				return run(t, cmd)
			}

			if out, _, _ := chat("mcp", "list"); !strings.Contains(out, "not logged in") {
				t.Fatalf("list before login:\n%s", out)
			}
			if _, errOut, _ := chat("-p", "use the server"); !strings.Contains(errOut, "needs you to log in: chat mcp login t") {
				t.Fatalf("before login:\n%s", errOut)
			}
			out, errOut, code := chat("mcp", "login", "t")
			if code != 0 || !strings.Contains(out, "logged in to t") || !strings.Contains(errOut, as.AS.URL+"/authorize?") {
				t.Fatalf("login: exit %d\n%s\n%s", code, out, errOut)
			}
			file := filepath.Join(r.home, ".local", "state", "chat", "mcp-auth", "t.json")
			fi, err := os.Stat(file)
			if err != nil || fi.Mode().Perm() != 0o600 || int(fi.Sys().(*syscall.Stat_t).Uid) != u.UID {
				t.Fatalf("the token file: %v %v", fi, err)
			}
			token, _ := os.ReadFile(file)
			conf, _ := os.ReadFile(filepath.Join(r.home, ".config", "chat", "config.toml"))
			if strings.Contains(string(conf), "token") || !strings.Contains(string(token), "refresh_token") {
				t.Fatalf("config:\n%s", conf)
			}
			if out, _, _ := chat("mcp", "list"); !strings.Contains(out, "logged in") || strings.Contains(out, "not logged in") {
				t.Fatalf("list after login:\n%s", out)
			}
			out, errOut, code = chat("-p", "use the server")
			if code != 0 || !strings.Contains(out, "the server said: echo: behind a login") {
				t.Fatalf("after login: exit %d\n%s\n%s", code, out, errOut)
			}
			for _, secret := range []string{"access_token", "refresh_token"} {
				if strings.Contains(out+errOut, secret) {
					t.Fatalf("%s shown:\n%s%s", secret, out, errOut)
				}
			}

			as.RevokeAll()
			if _, errOut, _ := chat("-p", "use the server"); !strings.Contains(errOut, "chat mcp login t") {
				t.Fatalf("after revocation:\n%s", errOut)
			}
			if out, _, code := chat("mcp", "logout", "t"); code != 0 || !strings.Contains(out, "logged out of t") {
				t.Fatalf("logout: %s", out)
			}
			if _, err := os.Stat(file); err == nil {
				t.Fatal("the tokens are still there")
			}
		})
	}
}

// followingBrowser is $BROWSER for the login tests: handed the file chat
// writes, it reads the address the file forwards to and follows it, as a
// browser with consent given would. With CHAT_TEST_BROWSER_LOG set it
// first says there what it was given (its pid and argv).
const followingBrowser = `#!/bin/sh
[ -n "$CHAT_TEST_BROWSER_LOG" ] && echo "$$ $*" > "$CHAT_TEST_BROWSER_LOG"
f=${1#file://}
u=$(sed -n 's/.*url=\([^"]*\)".*/\1/p' "$f" | head -n 1 | sed 's/&amp;/\&/g')
exec curl -sfL -o /dev/null "$u"
`
