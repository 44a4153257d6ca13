package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/chatrepl/chat/config"
)

// OAuth for HTTP servers that require it, through the go-sdk's
// authorization code handler (discovery, PKCE, dynamic registration or a
// configured client): `chat mcp login NAME` runs the flow once, with the
// browser on the authorization URL and a loopback listener for the
// answer; the tokens are kept in one 0600 file per server (never in the
// config, never in a log) and refreshed before they expire. A connection
// never starts a login itself: a server that refuses says to log in.

// loginWait bounds a login: the person has this long in the browser.
const loginWait = 5 * time.Minute

// Logins are the servers' tokens, one file per server in Dir.
type Logins struct{ Dir string }

// login is what one file holds: whom it was issued for and by, and the
// token.
type login struct {
	URL          string        `json:"url"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	Token        *oauth2.Token `json:"token"`
}

func (l Logins) path(name string) string {
	return filepath.Join(l.Dir, strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)+".json")
}

// load is the server's login, nil when there is none for this URL.
func (l Logins) load(name, serverURL string) (*login, error) {
	b, err := os.ReadFile(l.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lg login
	if err := json.Unmarshal(b, &lg); err != nil || lg.Token == nil {
		return nil, fmt.Errorf("the stored login of %s is unreadable (chat mcp login %s makes a new one)", name, name)
	}
	if lg.URL != serverURL {
		return nil, nil // issued for another address: not sent there
	}
	return &lg, nil
}

func (l Logins) save(name string, lg *login) error {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(lg)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(l.Dir, ".login-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), l.path(name))
}

// Logout forgets the server's tokens; false when there were none.
func (l Logins) Logout(name string) (bool, error) {
	err := os.Remove(l.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// State says whether chat holds a login for the server.
func (l Logins) State(name string, cfg config.MCPConfig) string {
	if cfg.URL == "" {
		return "-"
	}
	lg, err := l.load(name, cfg.URL)
	switch {
	case err != nil:
		return "login unreadable"
	case lg == nil:
		return "not logged in"
	case lg.Token.Expiry.IsZero() || time.Until(lg.Token.Expiry) > 0:
		return "logged in"
	case lg.Token.RefreshToken != "":
		return "logged in (refreshes at next use)"
	}
	return "login expired"
}

// stored is the OAuth handler of an ordinary connection: the stored
// token (refreshed as needed, and kept), and on a refusal the advice to
// log in.
type stored struct {
	name, url string
	logins    Logins
	client    *http.Client

	mu  sync.Mutex
	ts  oauth2.TokenSource
	had bool // a token was sent
}

func (h *stored) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ts != nil {
		return h.ts, nil
	}
	lg, err := h.logins.load(h.name, h.url)
	if err != nil || lg == nil {
		return nil, err // no header: the server says whether it needs one
	}
	h.had = true
	conf := &oauth2.Config{ClientID: lg.ClientID, ClientSecret: lg.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: lg.TokenURL}}
	if lg.ClientSecret == "" {
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams // a public client names itself in the form
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
	h.ts = &keeping{name: h.name, logins: h.logins, lg: lg, src: conf.TokenSource(ctx, lg.Token), last: lg.Token.AccessToken}
	return h.ts, nil
}

func (h *stored) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	h.mu.Lock()
	had := h.had
	h.mu.Unlock()
	if had {
		return fmt.Errorf("the MCP server %s refused chat's login (revoked or expired): chat mcp login %s", h.name, h.name)
	}
	return fmt.Errorf("the MCP server %s needs you to log in: chat mcp login %s", h.name, h.name)
}

// keeping keeps each refreshed token in the server's file (a rotated
// refresh token is good once: the old one must not stay).
type keeping struct {
	name   string
	logins Logins
	lg     *login
	src    oauth2.TokenSource
	mu     sync.Mutex
	last   string
}

func (k *keeping) Token() (*oauth2.Token, error) {
	tok, err := k.src.Token()
	if err != nil {
		// The token endpoint's words, not the token.
		var re *oauth2.RetrieveError
		why := err.Error()
		if errors.As(err, &re) {
			why = cmp.Or(re.ErrorCode, re.Response.Status)
		}
		return nil, fmt.Errorf("renewing the login to the MCP server %s failed (%s): chat mcp login %s", k.name, why, k.name)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if tok.AccessToken != k.last {
		k.last = tok.AccessToken
		lg := *k.lg
		lg.Token = tok
		_ = k.logins.save(k.name, &lg)
	}
	return tok, nil
}

// Logout forgets a server's tokens; false when chat held none.
func (s *Servers) Logout(name string) (bool, error) {
	if _, ok := s.conf[name]; !ok {
		return false, fmt.Errorf("no MCP server named %q; there are: %s", name, strings.Join(s.Names(), ", "))
	}
	if s.logins == nil {
		return false, nil
	}
	return s.logins.Logout(name)
}

// LoginUI is how a login reaches the person: Say prints (the URL among
// it), Open opens the URL in a browser (may fail: the URL was printed)
// and must not wait for it: the page the browser returns to answers only
// once the login is done.
type LoginUI struct {
	Say  func(string)
	Open func(url string) error
}

// Login runs the authorization code flow for an HTTP server and keeps
// its tokens.
func (s *Servers) Login(ctx context.Context, name string, ui LoginUI) error {
	cfg, ok := s.conf[name]
	switch {
	case !ok:
		return fmt.Errorf("no MCP server named %q; there are: %s", name, strings.Join(s.Names(), ", "))
	case cfg.URL == "":
		return fmt.Errorf("%s is a command on stdio: only HTTP servers log in", name)
	case s.logins == nil:
		return errors.New("no folder to keep logins in")
	}
	ctx, cancel := context.WithTimeout(ctx, loginWait)
	defer cancel()
	port := 0
	if cfg.OAuth != nil {
		port = cfg.OAuth.CallbackPort
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("the loopback address the browser returns to: %w", err)
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port)
	cb := newCallback(name)
	page := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go page.Serve(l)
	defer func() {
		// The browser is told how the login ended before chat goes on
		// (and, from chat mcp login, exits): a page still being answered
		// is waited for, a little.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = page.Shutdown(sctx)
	}()
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: noRedirects}
	var saveErr error
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              client,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil || u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
				return nil, fmt.Errorf("the authorization server sent %q, which is not an https address: not opened", args.URL)
			}
			cb.expect(u.Query().Get("state"))
			ui.Say("Log in to " + name + " in your browser; if it did not open, visit:\n" + args.URL)
			if err := ui.Open(args.URL); err != nil {
				ui.Say("(could not open a browser: " + err.Error() + ")")
			}
			select {
			case res := <-cb.answers:
				if res.Code == "" {
					return nil, errors.New("the authorization server sent no code back (declined?)")
				}
				return res, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("no answer from the browser: %w", context.Cause(ctx))
			}
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			lg := &login{URL: cfg.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.Endpoint.TokenURL, Token: tok}
			saveErr = s.logins.save(name, lg)
			cb.finish(saveErr)
			return &keeping{name: name, logins: *s.logins, lg: lg, src: c.TokenSource(ctx, tok), last: tok.AccessToken}, saveErr
		},
	}
	if o := cfg.OAuth; o != nil && o.ClientID != "" {
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: s.getenv(o.ClientSecret)}
		}
		hc.PreregisteredClient = creds
	} else {
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "chat", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}
	}
	if cfg.OAuth != nil && len(cfg.OAuth.Scopes) > 0 {
		scopes := cfg.OAuth.Scopes
		hc.ScopeFilter = func([]string) []string { return scopes }
	}
	handler, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		return err
	}
	session, err := s.client.Connect(ctx, s.httpTransport(cfg, handler), nil)
	cb.finish(cmp.Or(saveErr, err, errors.New("the server was reached without a login")))
	if saveErr != nil {
		return fmt.Errorf("keeping the login: %w", saveErr)
	}
	if err != nil {
		_, _ = s.logins.Logout(name) // nothing half-made is kept
		return fmt.Errorf("logging in to %s: %w", name, err)
	}
	return session.Close()
}

// noRedirects: a token or registration endpoint that redirects elsewhere
// is not followed (what is sent there holds a code or a secret).
func noRedirects(r *http.Request, via []*http.Request) error {
	return fmt.Errorf("the authorization server redirected to %s: not followed", origin(r.URL))
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
