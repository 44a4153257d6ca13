package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// cookieName holds the session secret a sign-in link was exchanged for.
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

// credentials are how a browser gets in: a sign-in link works once and
// is exchanged for a cookie that is scoped to a secret path. A browser
// sends a cookie to every port of a host, but only under its path, so a
// server on another port of 127.0.0.1 never gets it without the path,
// and the path alone (an address bar, a history) is not the cookie.
type credentials struct {
	cookie string
	prefix string // "/s/<secret>": the page and its API live under it

	mu       sync.Mutex
	links    map[string]bool // sign-in tokens not used yet
	reissued time.Time
	// reissue is told when a used (or unknown) link is tried, at most
	// every reissueEvery: the person gets a new link where only they can
	// read it (the terminal).
	reissue func()
}

const reissueEvery = 5 * time.Second

// tried is a sign-in with a link that does not work (any more).
func (c *credentials) tried() {
	c.mu.Lock()
	due := c.reissue != nil && time.Since(c.reissued) >= reissueEvery
	if due {
		c.reissued = time.Now()
	}
	c.mu.Unlock()
	if due {
		c.reissue()
	}
}

func newCredentials() *credentials {
	return &credentials{cookie: secret(), prefix: "/s/" + secret(), links: map[string]bool{}}
}

// link mints a sign-in token that works once.
func (c *credentials) link() string {
	tok := secret()
	c.mu.Lock()
	c.links[tok] = true
	c.mu.Unlock()
	return tok
}

// spend says whether tok is an unused sign-in token, and uses it up.
func (c *credentials) spend(tok string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for t := range c.links {
		if same(t, tok) {
			delete(c.links, t)
			return true
		}
	}
	return false
}

// underPrefix says whether path is under the secret path, comparing the
// secret in constant time.
func (c *credentials) underPrefix(path string) bool {
	seg, ok := strings.CutPrefix(path, "/s/")
	if !ok {
		return false
	}
	seg, _, ok = strings.Cut(seg, "/")
	return ok && same("/s/"+seg, c.prefix)
}

// guard checks every request: the Host (403), then a sign-in link (once,
// on /), then the secret path and its cookie (401), and for what changes
// state the Origin (403); it sets the security headers of every answer.
// What passes is served with the secret path stripped.
func (s *Server) guard(next http.Handler) http.Handler {
	c := s.creds
	inner := http.StripPrefix(c.prefix, next)
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
			if !c.spend(tok) {
				c.tried()
				http.Error(w, "this sign-in link was used already (each works once): take a new one from chat's terminal", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: c.cookie, Path: c.prefix + "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, c.prefix+"/", http.StatusSeeOther) // the token leaves the address bar and the history
			return
		}
		if k, err := r.Cookie(cookieName); err != nil || !same(k.Value, c.cookie) || !c.underPrefix(r.URL.Path) {
			http.Error(w, "not signed in: open the address chat printed (each works once)", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if o := r.Header.Get("Origin"); o != "http://"+r.Host {
				http.Error(w, "a request from another origin", http.StatusForbidden)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		inner.ServeHTTP(w, r)
	})
}

// maxBody bounds what a request may send: a long paste fits.
const maxBody = 4 << 20
