package tool

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrepl/chat/tool/netproxy"
)

// proxied serves n's rules on a proxy at a loopback address, without a
// box: the decisions are the same.
func proxied(t *testing.T, n *Network) *http.Client {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &netproxy.Proxy{
		Decide: func(ctx context.Context, q netproxy.Query) netproxy.Verdict {
			return n.decide(ctx, q, func() string { return "test" })
		},
		AddressAllowed: n.addressAllowed, Lookup: n.Lookup,
		Observe: func(ev netproxy.Event) {
			n.record(NetEvent{Host: ev.Host, Port: ev.Port, Allowed: ev.Allowed, Reason: ev.Reason, Up: ev.Up, Down: ev.Down}, "")
		},
	}
	go func() { _ = p.Serve(l) }()
	t.Cleanup(p.Close)
	u, _ := url.Parse("http://" + l.Addr().String())
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}, Timeout: 10 * time.Second}
}

func hosts(table map[string]string) func(context.Context, string) ([]net.IPAddr, error) {
	return func(_ context.Context, host string) ([]net.IPAddr, error) {
		if ip, ok := table[host]; ok {
			return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

// TestNetworkRules: nothing by default; deny wins over allow; a wildcard
// covers names under a domain, not the domain; a non-public address is
// reached only when listed itself, never through a name, nor a cloud's
// metadata address through an allowed name.
func TestNetworkRules(t *testing.T) {
	var hits atomic.Int64
	svc := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "OK") })}
	l, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Skip(err)
	}
	go func() { _ = svc.Serve(l) }()
	defer svc.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	n := &Network{
		Allow: []string{"*.example.test", "denied.example.test", "127.0.0.2", "meta.test", "local.test"},
		Deny:  []string{"denied.example.test"},
		Lookup: hosts(map[string]string{"a.example.test": "127.0.0.2", "denied.example.test": "127.0.0.2",
			"example.test": "127.0.0.2", "meta.test": "169.254.169.254", "local.test": "127.0.0.1"}),
	}
	c := proxied(t, n)
	get := func(host string) (int, string) {
		res, err := c.Get("http://" + host + ":" + port + "/")
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for host, want := range map[string]string{
		"a.example.test":      "OK",                    // under the wildcard, resolving to a listed address
		"127.0.0.2":           "OK",                    // the address, listed itself
		"example.test":        "not on the allow list", // the wildcard's domain itself
		"denied.example.test": "is on deny_domains",
		"meta.test":           "169.254.169.254 is a link-local address",
		"local.test":          "127.0.0.1 is a loopback address",
		"127.0.0.1":           "not on the allow list",
		"other.test":          "not on the allow list",
	} {
		code, body := get(host)
		if want == "OK" && (code != 200 || body != "OK") || want != "OK" && (code != 403 || !strings.Contains(body, want)) {
			t.Errorf("%s: %d %q, want %q", host, code, body, want)
		}
	}
	if hits.Load() != 2 {
		t.Errorf("the service was reached %d times, want 2", hits.Load())
	}
	refused := 0
	for _, e := range n.Log() {
		if !e.Allowed {
			refused++
		}
	}
	if refused != 6 {
		t.Errorf("%d refusals logged, want 6: %+v", refused, n.Log())
	}
}

// TestOneQuestionPerHost: connections to a host on no list that arrive
// while the person is asked wait for that one answer; a "no" holds for
// the session without asking again.
func TestOneQuestionPerHost(t *testing.T) {
	var asked atomic.Int64
	release := make(chan struct{})
	n := &Network{Lookup: hosts(map[string]string{"q.test": "192.0.2.1"}),
		Ask: func(ctx context.Context, host, command string) Verdict {
			asked.Add(1)
			<-release
			return Deny
		}}
	c := proxied(t, n)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if res, err := c.Get("http://q.test/"); err == nil {
				res.Body.Close()
			}
		})
	}
	for asked.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the others arrive while it is asked
	close(release)
	wg.Wait()
	if res, err := c.Get("http://q.test/"); err == nil {
		res.Body.Close()
	}
	if asked.Load() != 1 {
		t.Errorf("asked %d times", asked.Load())
	}
}
