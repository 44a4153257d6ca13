package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Query is one host a command in the box asks to reach.
type Query struct {
	Host string // lower-case, no trailing dot: a name or an IP literal
	Port int
	// From is the connection's port inside the box: the caller can find
	// which command it came from.
	From int
}

// Verdict is Decide's answer; Reason says why a refusal was made (and
// what would allow it), for the command and for the person.
type Verdict struct {
	Allow  bool
	Reason string
}

// Event is one connection the box asked for.
type Event struct {
	Host    string
	Port    int
	From    int
	Allowed bool
	Reason  string // why it was refused, or why it failed
	Addr    string // the checked address it went to
	Up      int64  // bytes from the box
	Down    int64  // bytes to the box
}

// Proxy decides and carries the box's connections. Its fields are set
// before Serve.
type Proxy struct {
	Decide func(ctx context.Context, q Query) Verdict
	// AddressAllowed reports whether the person allowed a non-public
	// address itself (an IP literal on their list).
	AddressAllowed func(ip net.IP) bool
	// Lookup resolves a name (default: the system's resolver).
	Lookup func(ctx context.Context, host string) ([]net.IPAddr, error)
	// Observe hears each connection (may be nil).
	Observe func(Event)

	transport *http.Transport
	once      sync.Once
	srv       *http.Server
	closed    atomic.Bool
}

// dialTimeout bounds one connection attempt to a checked address.
const dialTimeout = 15 * time.Second

func (p *Proxy) init() {
	p.once.Do(func() {
		p.transport = &http.Transport{
			Proxy:                 nil, // never another proxy: chat's own network decides
			DialContext:           p.dialChecked,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       60 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
			DisableCompression:    true, // pass bodies through as sent
		}
		p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: discardLog()}
	})
}

// Serve accepts the box's connections on l until Close.
func (p *Proxy) Serve(l net.Listener) error {
	p.init()
	err := p.srv.Serve(l)
	if p.closed.Load() {
		return nil
	}
	return err
}

// Close stops serving and ends every connection.
func (p *Proxy) Close() {
	p.init()
	p.closed.Store(true)
	_ = p.srv.Close()
	p.transport.CloseIdleConnections()
}

// ServeHTTP is the proxy: CONNECT host:port, or a request for an
// absolute http URL.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	from := remotePort(r.RemoteAddr)
	if r.Method == http.MethodConnect {
		p.connect(w, r, from)
		return
	}
	if r.URL.Host == "" || r.URL.Scheme != "http" {
		http.Error(w, "chat's sandbox proxy: only CONNECT and absolute http:// URLs are proxied", http.StatusBadRequest)
		return
	}
	q, addrs, ok := p.admit(w, r, r.URL.Host, 80, from)
	if !ok {
		return
	}
	ev := Event{Host: q.Host, Port: q.Port, From: from, Allowed: true}
	counted := &countingBody{ReadCloser: r.Body}
	r.Body = counted
	rp := &httputil.ReverseProxy{
		Transport: p.transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
			*pr.Out = *pr.Out.WithContext(context.WithValue(pr.Out.Context(), pinKey{}, addrs))
		},
		ModifyResponse: func(res *http.Response) error {
			res.Body = &countingBody{ReadCloser: res.Body, n: &ev.Down}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			ev.Reason = err.Error()
			http.Error(w, "chat's sandbox proxy: "+q.Host+": "+err.Error(), http.StatusBadGateway)
		},
		ErrorLog: discardLog(),
	}
	rp.ServeHTTP(w, r)
	ev.Up = counted.count()
	ev.Addr = addrString(addrs, q.Port)
	p.observe(ev)
}

// connect answers CONNECT: the decision on the host name, then the bytes
// both ways, untouched.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request, from int) {
	q, addrs, ok := p.admit(w, r, r.Host, 443, from)
	if !ok {
		return
	}
	ev := Event{Host: q.Host, Port: q.Port, From: from, Allowed: true}
	up, err := p.dialAddrs(r.Context(), addrs, q.Port)
	if err != nil {
		ev.Reason = err.Error()
		p.observe(ev)
		http.Error(w, "chat's sandbox proxy: "+q.Host+": "+err.Error(), http.StatusBadGateway)
		return
	}
	ev.Addr = up.RemoteAddr().String()
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "chat's sandbox proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	ev.Up, ev.Down = tunnel(down, rw, up)
	p.observe(ev)
}

// admit reads the host a request asks for and decides it: the checked
// addresses, or false once the refusal is answered.
func (p *Proxy) admit(w http.ResponseWriter, r *http.Request, authority string, defaultPort, from int) (Query, []net.IP, bool) {
	q, err := query(authority, defaultPort, from)
	if err != nil {
		http.Error(w, "chat's sandbox proxy: "+err.Error(), http.StatusBadRequest)
		return q, nil, false
	}
	addrs, refusal := p.check(r.Context(), q)
	if refusal != "" {
		p.refuse(w, q, refusal)
		return q, nil, false
	}
	return q, addrs, true
}

// tunnel copies both ways until both ends are done; what the box sent
// before the answer (already buffered) goes first.
func tunnel(down net.Conn, rw *bufio.ReadWriter, up net.Conn) (sent, received int64) {
	defer down.Close()
	defer up.Close()
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return 0, 0
	}
	if n := rw.Reader.Buffered(); n > 0 {
		b, _ := rw.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return 0, 0
		}
		sent = int64(n)
	}
	done := make(chan int64, 1)
	go func() {
		// Plain TCP connections on both sides: the kernel splices them.
		n, _ := io.Copy(up, down)
		closeWrite(up)
		done <- n
	}()
	received, _ = io.Copy(down, up)
	closeWrite(down)
	sent += <-done
	return sent, received
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	} else {
		c.Close()
	}
}

// check decides q and, when it is allowed, resolves it once: the
// addresses a connection may go to, or why none may.
func (p *Proxy) check(ctx context.Context, q Query) ([]net.IP, string) {
	v := p.Decide(ctx, q)
	if !v.Allow {
		return nil, v.Reason
	}
	if ip := net.ParseIP(q.Host); ip != nil {
		return []net.IP{ip}, "" // allowed as a literal: the person named this address
	}
	lookup := p.Lookup
	if lookup == nil {
		lookup = net.DefaultResolver.LookupIPAddr
	}
	lctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	found, err := lookup(lctx, q.Host)
	if err != nil {
		return nil, "cannot resolve " + q.Host + " (" + err.Error() + ")"
	}
	var ok []net.IP
	var local []string
	for _, a := range found {
		if kind := AddrKind(a.IP); kind != "" && (p.AddressAllowed == nil || !p.AddressAllowed(a.IP)) {
			local = append(local, a.IP.String()+" is "+kind+" address")
			continue
		}
		ok = append(ok, a.IP)
	}
	if len(ok) == 0 {
		if len(local) == 0 {
			return nil, "cannot resolve " + q.Host + " (no address)"
		}
		return nil, q.Host + " resolves to the machine's own network (" + strings.Join(local, ", ") +
			"): the box never reaches it through a name; allow the address itself if you mean it"
	}
	return ok, ""
}

func (p *Proxy) refuse(w http.ResponseWriter, q Query, reason string) {
	p.observe(Event{Host: q.Host, Port: q.Port, From: q.From, Reason: reason})
	w.Header().Set("X-Chat-Refused", q.Host)
	http.Error(w, "chat's sandbox refused "+net.JoinHostPort(q.Host, strconv.Itoa(q.Port))+": "+reason, http.StatusForbidden)
}

func (p *Proxy) observe(ev Event) {
	if p.Observe != nil {
		p.Observe(ev)
	}
}

type pinKey struct{}

// dialChecked is the plain-HTTP transport's dial: only to the addresses
// checked for this request.
func (p *Proxy) dialChecked(ctx context.Context, _, addr string) (net.Conn, error) {
	addrs, _ := ctx.Value(pinKey{}).([]net.IP)
	_, port, err := net.SplitHostPort(addr)
	if err != nil || len(addrs) == 0 {
		return nil, errors.New("no checked address for " + addr)
	}
	n, _ := strconv.Atoi(port)
	return p.dialAddrs(ctx, addrs, n)
}

func (p *Proxy) dialAddrs(ctx context.Context, addrs []net.IP, port int) (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	var err error
	for _, ip := range addrs {
		var c net.Conn
		if c, err = d.DialContext(ctx, "tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port))); err == nil {
			return c, nil
		}
	}
	return nil, err
}

// query reads host[:port] as the box asked for it.
func query(authority string, defaultPort, from int) (Query, error) {
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		host, port = authority, strconv.Itoa(defaultPort)
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 || host == "" {
		return Query{}, fmt.Errorf("%q is not a host and port", authority)
	}
	return Query{Host: host, Port: n, From: from}, nil
}

func remotePort(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

func addrString(addrs []net.IP, port int) string {
	if len(addrs) == 0 {
		return ""
	}
	return net.JoinHostPort(addrs[0].String(), strconv.Itoa(port))
}

// countingBody counts what is read through it.
type countingBody struct {
	io.ReadCloser
	n   *int64
	own int64
}

func (c *countingBody) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	if c.n != nil {
		atomic.AddInt64(c.n, int64(n))
	} else {
		atomic.AddInt64(&c.own, int64(n))
	}
	return n, err
}

func (c *countingBody) count() int64 { return atomic.LoadInt64(&c.own) }
