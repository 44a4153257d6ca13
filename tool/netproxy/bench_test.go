package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// bulkServer writes size bytes to each connection, after the client's
// first byte, then closes it.
func bulkServer(b *testing.B, size int64) string {
	b.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	chunk := make([]byte, 256<<10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var one [1]byte
				if _, err := c.Read(one[:]); err != nil {
					return
				}
				for left := size; left > 0; {
					n := min(left, int64(len(chunk)))
					if _, err := c.Write(chunk[:n]); err != nil {
						return
					}
					left -= n
				}
			}()
		}
	}()
	return l.Addr().String()
}

// allowAll is a proxy that allows every host, loopback included.
func allowAll(b *testing.B) string {
	b.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &Proxy{
		Decide:         func(context.Context, Query) Verdict { return Verdict{Allow: true} },
		AddressAllowed: func(net.IP) bool { return true },
	}
	go func() { _ = p.Serve(l) }()
	b.Cleanup(p.Close)
	return l.Addr().String()
}

// dial reaches target directly (proxy "") or through a CONNECT.
func dial(proxy, target string) (net.Conn, *bufio.Reader, error) {
	if proxy == "" {
		c, err := net.Dial("tcp4", target)
		if err != nil {
			return nil, nil, err
		}
		return c, bufio.NewReaderSize(c, 256<<10), nil
	}
	c, err := net.Dial("tcp4", proxy)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	r := bufio.NewReaderSize(c, 256<<10)
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		c.Close()
		return nil, nil, fmt.Errorf("CONNECT: %q %v", status, err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		if line == "\r\n" {
			return c, r, nil
		}
	}
}

// BenchmarkDownload100MB: 100 MB from a loopback server, directly and
// through the proxy's CONNECT tunnel; MB/s is the rate.
func BenchmarkDownload100MB(b *testing.B) {
	const size = 100 << 20
	target := bulkServer(b, size)
	proxy := allowAll(b)
	for _, via := range []struct{ name, proxy string }{{"direct", ""}, {"proxy", proxy}} {
		b.Run(via.name, func(b *testing.B) {
			b.SetBytes(size)
			buf := make([]byte, 256<<10)
			for b.Loop() {
				c, r, err := dial(via.proxy, target)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = c.Write([]byte{1})
				// A client that reads in large pieces, as curl and Go's
				// HTTP client do.
				n, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{r}, buf)
				c.Close()
				if err != nil || n != size {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}

// BenchmarkNewConnection: one connection and its first byte, directly
// and through the proxy (the decision, the lookup-free dial to a literal
// and the tunnel).
func BenchmarkNewConnection(b *testing.B) {
	target := bulkServer(b, 1)
	proxy := allowAll(b)
	for _, via := range []struct{ name, proxy string }{{"direct", ""}, {"proxy", proxy}} {
		b.Run(via.name, func(b *testing.B) {
			for b.Loop() {
				c, r, err := dial(via.proxy, target)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = c.Write([]byte{1})
				if _, err := r.ReadByte(); err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/conn")
		})
	}
}

// BenchmarkHTTPSDownload100MB: what `go mod download` and `npm install`
// do: 100 MB over HTTPS from a loopback server, with Go's HTTP client,
// directly and through the proxy (CONNECT; the TLS passes untouched).
func BenchmarkHTTPSDownload100MB(b *testing.B) {
	const size = 100 << 20
	chunk := make([]byte, 256<<10)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for left := size; left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	proxy := allowAll(b)
	for _, via := range []struct{ name, proxy string }{{"direct", ""}, {"proxy", proxy}} {
		b.Run(via.name, func(b *testing.B) {
			tr := srv.Client().Transport.(*http.Transport).Clone()
			if via.proxy != "" {
				tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: via.proxy})
			}
			tr.ReadBufferSize = 256 << 10
			client := &http.Client{Transport: tr}
			buf := make([]byte, 256<<10)
			b.SetBytes(size)
			for b.Loop() {
				res, err := client.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, struct{ io.Reader }{res.Body}, buf)
				res.Body.Close()
				if err != nil || n != size {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
			tr.CloseIdleConnections()
		})
	}
}
