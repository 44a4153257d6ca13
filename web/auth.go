package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// cookieName holds the session secret the token was exchanged for.
const cookieName = "chat_session"

// secret is 256 random bits, as hex.
func secret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return hex.EncodeToString(b)
}

func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// hostAllowed says whether a request's Host names this server: an IP
// literal or localhost, at its port. A domain name is never accepted, so
// a page elsewhere cannot rebind one to the loopback and read us.
func hostAllowed(host, port string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != port {
		return false
	}
	return strings.EqualFold(h, "localhost") || net.ParseIP(h) != nil
}

// guard checks every request: the Host (403), then the cookie (401; the
// token once, on the page's address), and for what changes state the
// Origin (403); it sets the security headers of every answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !hostAllowed(r.Host, s.port) {
			http.Error(w, "this server answers only to its own address", http.StatusForbidden)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && r.URL.Path == "/" {
			if !same(tok, s.token) {
				http.Error(w, "wrong token: open the address chat printed", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, "/", http.StatusSeeOther) // the token leaves the address bar and the history
			return
		}
		c, err := r.Cookie(cookieName)
		if err != nil || !same(c.Value, s.cookie) {
			http.Error(w, "not signed in: open the address chat printed (it carries a token)", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if o := r.Header.Get("Origin"); o != "http://"+r.Host {
				http.Error(w, "a request from another origin", http.StatusForbidden)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// maxBody bounds what a request may send: a long paste fits.
const maxBody = 4 << 20
