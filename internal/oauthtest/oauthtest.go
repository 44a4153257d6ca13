// Package oauthtest is an OAuth 2.1 authorization server and an MCP
// server it protects, for tests: RFC 8414 metadata, dynamic client
// registration (RFC 7591) and pre-registered clients, the authorization
// code grant with PKCE (S256 only) and consent given at once, refresh
// tokens, revocation, and the resource's RFC 9728 metadata with the
// go-sdk's own bearer middleware. It checks what a strict server checks
// (redirect URIs, verifiers, one use per code) and counts what it saw.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/chatrepl/chat/internal/mcptest"
)

// Server is the authorization server and the protected MCP server.
type Server struct {
	AS, Resource *httptest.Server
	// TokenLife is how long an access token lives (default an hour).
	TokenLife time.Duration
	// RedirectTokenTo, when set, makes the token endpoint answer with a
	// redirect there (an authorization server that redirects elsewhere).
	RedirectTokenTo string

	mu            sync.Mutex
	clients       map[string][]string // client id → redirect URIs
	codes         map[string]grant
	access        map[string]time.Time // token → expiry
	refresh       map[string]string    // refresh token → client
	registrations int
	refreshes     int
	logins        int
}

type grant struct{ client, redirect, challenge string }

// New starts both servers; preregistered is a client id the
// authorization server knows without registration.
func New(t testing.TB, preregistered string) *Server {
	s := &Server{TokenLife: time.Hour, clients: map[string][]string{}, codes: map[string]grant{},
		access: map[string]time.Time{}, refresh: map[string]string{}}
	if preregistered != "" {
		s.clients[preregistered] = nil // any loopback redirect
	}
	as := http.NewServeMux()
	as.HandleFunc("/.well-known/oauth-authorization-server", s.metadata)
	as.HandleFunc("/register", s.register)
	as.HandleFunc("/authorize", s.authorize)
	as.HandleFunc("/token", s.token)
	s.AS = httptest.NewServer(as)
	t.Cleanup(s.AS.Close)

	srv := mcptest.NewServer()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	res := http.NewServeMux()
	s.Resource = httptest.NewUnstartedServer(res)
	s.Resource.Start()
	t.Cleanup(s.Resource.Close)
	res.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: s.Resource.URL + "/mcp", AuthorizationServers: []string{s.AS.URL}, ScopesSupported: []string{"mcp"}}))
	res.Handle("/mcp", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: s.Resource.URL + "/.well-known/oauth-protected-resource/mcp"})(mcpHandler))
	return s
}

// URL is the protected MCP endpoint.
func (s *Server) URL() string { return s.Resource.URL + "/mcp" }

// RevokeAll revokes every access and refresh token.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access, s.refresh = map[string]time.Time{}, map[string]string{}
}

// Counts are the registrations, logins and refreshes seen.
func (s *Server) Counts() (registrations, logins, refreshes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.registrations, s.logins, s.refreshes
}

func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.access[token]
	if !ok || time.Now().After(exp) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: []string{"mcp"}, Expiration: exp}, nil
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer": s.AS.URL, "authorization_endpoint": s.AS.URL + "/authorize", "token_endpoint": s.AS.URL + "/token",
		"registration_endpoint": s.AS.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":            []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "scopes_supported": []string{"mcp", "offline_access"},
		"token_endpoint_auth_methods_supported": []string{"none"},
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	id := random()
	s.mu.Lock()
	s.clients[id] = m.RedirectURIs
	s.registrations++
	s.mu.Unlock()
	writeJSONStatus(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// authorize gives consent at once: it redirects to the client's redirect
// URI with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	redirects, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	u, err := url.Parse(redirect)
	switch {
	case !known || err != nil || redirects != nil && !slices.Contains(redirects, redirect) || redirects == nil && u.Hostname() != "127.0.0.1":
		http.Error(w, "unknown client or redirect", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("response_type") != "code":
		http.Error(w, "PKCE (S256) is required", http.StatusBadRequest)
		return
	}
	code := random()
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge")}
	s.mu.Unlock()
	back := u.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	u.RawQuery = back.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if s.RedirectTokenTo != "" {
		http.Redirect(w, r, s.RedirectTokenTo, http.StatusTemporaryRedirect)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	client := r.Form.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok { // client_secret_basic, or a public client's id in the header
		client = id
	}
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[r.Form.Get("code")]
		delete(s.codes, r.Form.Get("code")) // one use
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !ok || g.client != client || g.redirect != r.Form.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		s.logins++
	case "refresh_token":
		if c, ok := s.refresh[r.Form.Get("refresh_token")]; !ok || c != client {
			writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, r.Form.Get("refresh_token")) // rotated
		s.refreshes++
	default:
		writeJSONStatus(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := random(), random()
	s.access[access] = time.Now().Add(s.TokenLife)
	s.refresh[refresh] = client
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(s.TokenLife / time.Second)})
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		fmt.Println(err)
	}
}
