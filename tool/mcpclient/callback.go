package mcpclient

import (
	"crypto/subtle"
	"fmt"
	"html"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callback is the loopback page the browser returns to after a login. It
// takes only an answer that carries this login's state (another local
// user can reach the port, but not read the state: the browser is handed
// it in a file of the person's), and it says "logged in" only once the
// code was exchanged for tokens and they were kept.
type callback struct {
	name    string
	answers chan *auth.AuthorizationResult

	mu      sync.Mutex
	state   string
	taken   bool
	done    chan struct{} // closed by finish
	outcome error
}

func newCallback(name string) *callback {
	return &callback{name: name, answers: make(chan *auth.AuthorizationResult, 1), done: make(chan struct{})}
}

// expect sets the state an authorization request carries: the answer
// to it is taken once.
func (c *callback) expect(state string) {
	c.mu.Lock()
	c.state, c.taken = state, false
	c.mu.Unlock()
}

// finish records the login's outcome (the first one counts).
func (c *callback) finish(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
	default:
		c.outcome = err
		close(c.done)
	}
}

func (c *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/callback" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	c.mu.Lock()
	ours := c.state != "" && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(c.state)) == 1 && !c.taken
	if ours {
		c.taken = true
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	name := html.EscapeString(c.name)
	if !ours {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<p>chat: this is not the answer to the login to %s that chat is waiting for; nothing was done.</p>", name)
		return
	}
	c.answers <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	if e := q.Get("error"); e != "" {
		fmt.Fprintf(w, "<p>chat: the login to %s failed: %s. You can close this tab.</p>", name, html.EscapeString(e))
		return
	}
	select {
	case <-c.done:
	case <-r.Context().Done():
		return
	}
	if c.outcome != nil {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "<p>chat: the login to %s failed: %s. You can close this tab.</p>", name, html.EscapeString(c.outcome.Error()))
		return
	}
	fmt.Fprintf(w, "<p>chat: logged in to %s. You can close this tab.</p>", name)
}
