package mcpclient

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/internal/oauthtest"
)

// browser plays the person's browser: it follows the authorization URL's
// redirects (consent is given at once) back to chat's loopback listener.
// Like a browser, it goes on its own: the page it ends on answers once
// the login is done.
func browser(t *testing.T) LoginUI {
	return LoginUI{Say: func(s string) { t.Log(s) }, Open: func(u string) error {
		go func() {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}}
}

func oauthServers(t *testing.T, as *oauthtest.Server, logins string, o *config.MCPOAuth) *Servers {
	s := New(map[string]config.MCPConfig{"t": {URL: as.URL(), OAuth: o, Allow: []string{"echo"}}}, os.Getenv, t.TempDir())
	s.SetLogins(logins)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestOAuthLogin: a server that requires OAuth says to log in; login
// registers chat (dynamic registration), runs the code flow with PKCE
// through the browser and the loopback listener, and keeps the tokens in
// a 0600 file; later connections use them, refresh them before they
// expire (and keep the new ones); a revoked login says to log in again.
func TestOAuthLogin(t *testing.T) {
	as := oauthtest.New(t, "")
	as.TokenLife = 5 * time.Second // inside oauth2's 10 s margin: renewed at every use
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	ctx := context.Background()

	if _, err := oauthServers(t, as, dir, nil).Connect(ctx, "t"); err == nil || !strings.Contains(err.Error(), "needs you to log in: chat mcp login t") {
		t.Fatalf("before login: %v", err)
	}
	s := oauthServers(t, as, dir, nil)
	if st := s.LoginState("t"); st != "not logged in" {
		t.Fatal(st)
	}
	if err := s.Login(ctx, "t", browser(t)); err != nil {
		t.Fatal(err)
	}
	if reg, logins, _ := as.Counts(); reg != 1 || logins != 1 {
		t.Fatalf("registrations %d, logins %d", reg, logins)
	}
	file := filepath.Join(dir, "t.json")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("token folder: %v", di.Mode())
	}
	before, _ := os.ReadFile(file)

	s2 := oauthServers(t, as, dir, nil)
	set := connected(t, s2, "t")
	if res := set.Dispatch(ctx, "t__echo", `{"text":"with a token"}`); res.Content != "echo: with a token" {
		t.Fatalf("%+v", res)
	}
	if _, _, refreshes := as.Counts(); refreshes == 0 {
		t.Fatal("a token about to expire was not renewed")
	}
	after, _ := os.ReadFile(file)
	if string(after) == string(before) {
		t.Fatal("the renewed token was not kept")
	}

	as.RevokeAll()
	_, err = oauthServers(t, as, dir, nil).Connect(ctx, "t")
	if err == nil || !strings.Contains(err.Error(), "login to the MCP server t failed (invalid_grant): chat mcp login t") {
		t.Fatalf("after revocation: %v", err)
	}
	var kept struct {
		Token struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
	}
	if json.Unmarshal(after, &kept) != nil || kept.Token.RefreshToken == "" {
		t.Fatalf("the file: %s", after)
	}
	if strings.Contains(err.Error(), kept.Token.AccessToken) || strings.Contains(err.Error(), kept.Token.RefreshToken) {
		t.Fatalf("a token in the error: %v", err)
	}
	if ok, err := (Logins{Dir: dir}).Logout("t"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("logout left the tokens")
	}
}

// TestOAuthPreregisteredClient: a configured client_id logs in without
// registering.
func TestOAuthPreregisteredClient(t *testing.T) {
	as := oauthtest.New(t, "chat-by-config")
	dir := t.TempDir()
	s := oauthServers(t, as, dir, &config.MCPOAuth{ClientID: "chat-by-config"})
	if err := s.Login(context.Background(), "t", browser(t)); err != nil {
		t.Fatal(err)
	}
	if reg, logins, _ := as.Counts(); reg != 0 || logins != 1 {
		t.Fatalf("registrations %d, logins %d", reg, logins)
	}
	connected(t, oauthServers(t, as, dir, &config.MCPOAuth{ClientID: "chat-by-config"}), "t")
}

// TestOAuthRedirectElsewhere: a token endpoint that redirects to another
// address is not followed (the code would go with it); nothing is kept.
func TestOAuthRedirectElsewhere(t *testing.T) {
	as := oauthtest.New(t, "")
	stolen := make(chan string, 1)
	thief := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		stolen <- r.Form.Get("code")
	})}
	l, _ := netListen(t)
	go thief.Serve(l)
	t.Cleanup(func() { thief.Close() })
	as.RedirectTokenTo = "http://" + l.Addr().String() + "/steal"
	dir := t.TempDir()
	err := oauthServers(t, as, dir, nil).Login(context.Background(), "t", browser(t))
	if err == nil || !strings.Contains(err.Error(), "redirected") {
		t.Fatalf("%v", err)
	}
	select {
	case c := <-stolen:
		t.Fatalf("the code went to the other address: %q", c)
	default:
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("kept: %v", entries)
	}
}

func netListen(t *testing.T) (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l, nil
}
