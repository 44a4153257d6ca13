package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
	"github.com/chatrepl/chat/internal/oauthtest"
)

// TestMCPLoginAnswerIsThePersons: chat mcp login hands the browser a file
// only the person can read, never the authorization request (its state
// and challenge are in no argv another user reads); an answer to the
// loopback page without this login's state is refused and the login
// goes on; and the page says "logged in" only when the code was
// exchanged: a code the server refuses makes it say the login failed.
// As root and as an ordinary user.
func TestMCPLoginAnswerIsThePersons(t *testing.T) {
	t.Parallel()
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			as := oauthtest.New(t, "")
			r := newUserRun(t, u, oaitest.New(t))
			writeConfig(t, r.home, fmt.Sprintf("[mcp.t]\nurl = %q\n", as.URL()))
			// The browser: injects a forged answer first (another user can
			// reach the port), then answers with a bad or a real code, and
			// keeps each page it was shown.
			browser := filepath.Join(r.home, "browser")
			script := `#!/bin/sh
echo "$$ $*" > "$HOME/argv"
f=${1#file://}
stat -c '%a %u' "$f" "$(dirname "$f")" > "$HOME/modes"
u=$(sed -n 's/.*url=\([^"]*\)".*/\1/p' "$f" | head -n 1 | sed 's/&amp;/\&/g')
back=$(curl -s -o /dev/null -w '%{redirect_url}' "$u")
port=$(echo "$back" | sed -n 's#http://127.0.0.1:\([0-9]*\)/.*#\1#p')
curl -s -o "$HOME/forged" -w '%{http_code}' "http://127.0.0.1:$port/callback?code=forged&state=guessed" > "$HOME/forged-status"
[ "$MODE" = bad ] && back=$(echo "$back" | sed 's/code=[^&]*/code=refused/')
curl -s -o "$HOME/page" "$back"
`
			if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			asuser.Give(t, u, r.home)
			login := func(mode string) (string, int) {
				cmd := r.command("mcp", "login", "t")
				cmd.Env = append(cmd.Env, "BROWSER="+browser, "MODE="+mode)
				out, errOut, code := run(t, cmd)
				return out + errOut, code
			}
			read := func(name string) string {
				b, _ := os.ReadFile(filepath.Join(r.home, name))
				return string(b)
			}

			out, code := login("bad")
			if code == 0 || strings.Contains(read("page"), "logged in to") || !strings.Contains(read("page"), "failed") {
				t.Fatalf("a refused code: exit %d, the page says %q\n%s", code, read("page"), out)
			}
			out, code = login("good")
			if code != 0 || !strings.Contains(read("page"), "logged in to t") {
				t.Fatalf("login: exit %d, the page says %q\n%s", code, read("page"), out)
			}
			if read("forged-status") != "400" || strings.Contains(read("forged"), "logged in") {
				t.Errorf("the forged answer: %s %q", read("forged-status"), read("forged"))
			}
			_, arg, _ := strings.Cut(strings.TrimSpace(read("argv")), " ")
			if strings.Contains(arg, "state=") || strings.Contains(arg, "code_challenge") {
				t.Fatalf("the browser's argv holds the authorization request: %s", arg)
			}
			fu, err := url.Parse(arg)
			if err != nil || fu.Scheme != "file" {
				t.Fatalf("the browser was given %q, not a file", arg)
			}
			if want := fmt.Sprintf("600 %d\n700 %d\n", u.UID, u.UID); read("modes") != want {
				t.Errorf("the forwarding file and its folder: %q, want %q", read("modes"), want)
			}
			if _, err := os.Stat(fu.Path); err == nil {
				t.Errorf("the forwarding file outlived the login")
			}
		})
	}
}
