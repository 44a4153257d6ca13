package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// hostService is an HTTP service of the person's on the host's loopback;
// it counts who reached it.
type hostService struct {
	url  string
	port int
	hits atomic.Int64
}

func newHostService(t *testing.T, addr, body string) *hostService {
	t.Helper()
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	h := &hostService{url: "http://" + ln.Addr().String() + "/", port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		fmt.Fprint(w, body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return h
}

// netWorld is a person's home and work folder with a config that allows
// some hosts, and chat run there in print mode.
func netWorld(t *testing.T, u asuser.User, bwrap, sandboxLines string) *gitWorld {
	t.Helper()
	w := newGitWorld(t, u, bwrap)
	cfg := filepath.Join(w.home, ".config/chat/config.toml")
	old, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(old, []byte(sandboxLines)...), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// allResults are what the model was told of every call, joined.
func allResults(srv *oaitest.Server) string {
	var b strings.Builder
	for _, out := range toolResults(srv) {
		b.WriteString(out + "\n---\n")
	}
	return b.String()
}

// TestTheBoxReachesOnlyWhatIsAllowed: boxed commands reach an allowed
// address through chat's proxy; a host on no list, a name that resolves
// to the machine's own loopback, a program that bypasses or unsets the
// proxy, DNS and UDP get nothing; print mode names each refused host on
// stderr. As root and as an ordinary user, with and without bubblewrap.
func TestTheBoxReachesOnlyWhatIsAllowed(t *testing.T) {
	t.Parallel()
	engines := boxEngines(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl (apt-get install curl)")
	}
	for _, u := range asuser.Both(t) {
		for name, bwrap := range engines {
			t.Run(u.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				private := newHostService(t, "127.0.0.1:0", "HOST-PRIVATE-SERVICE")
				allowed := newHostService(t, "127.0.0.2:0", "ALLOWED-BODY")
				udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer udp.Close()
				w := netWorld(t, u, bwrap, "allow_domains = [\"rebind.test\", \"127.0.0.2\"]\n")
				p := private.port
				lines := []string{
					"curl -sS -m 20 " + allowed.url,
					fmt.Sprintf("curl -sS -m 20 http://rebind.test:%d/", p),
					fmt.Sprintf("curl -sS -m 20 https://denied.test:%d/", p),
					fmt.Sprintf("curl -sS -m 20 --noproxy '*' http://rebind.test:%d/", p),
					fmt.Sprintf("env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy -u HTTPS_PROXY -u https_proxy curl -sS -m 5 http://127.0.0.1:%d/ http://rebind.test:%d/", p, p),
					fmt.Sprintf("echo SECRET-UDP > /dev/udp/127.0.0.1/%d; getent hosts example.org || echo NO-DNS", udp.LocalAddr().(*net.UDPAddr).Port),
				}
				srv := oaitest.New(t)
				srv.SetFallback(shellCalls(lines, nil))
				cmd := w.as(exec.Command(w.bin, "-p", "go"))
				cmd.Dir = w.work
				cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret",
					"CHAT_PROXY_HOSTS=rebind.test=127.0.0.1,denied.test=127.0.0.1")
				stdout, stderr, _ := run(t, cmd)
				if !strings.Contains(stdout, "done") {
					t.Fatalf("chat did not answer:\n%s\n%s", stdout, stderr)
				}
				told := allResults(srv)
				if !strings.Contains(told, "ALLOWED-BODY") {
					t.Errorf("the allowed address was not reached:\n%s", told)
				}
				if strings.Contains(told, "HOST-PRIVATE-SERVICE") || private.hits.Load() > 0 {
					t.Errorf("the host's own service was reached (%d times):\n%s", private.hits.Load(), told)
				}
				if !strings.Contains(told, "machine's own network") || !strings.Contains(told, "denied.test is not on the allow list") {
					t.Errorf("the refusals were not told to the command:\n%s", told)
				}
				if !strings.Contains(told, "NO-DNS") {
					t.Errorf("the box resolved a name:\n%s", told)
				}
				_ = udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil && n > 0 {
					t.Error("a UDP datagram reached the host")
				}
				for _, host := range []string{"rebind.test", "denied.test:" + fmt.Sprint(p)} {
					if !strings.Contains(stderr, "the sandbox refused "+host) {
						t.Errorf("stderr does not name %s:\n%s", host, stderr)
					}
				}
				if !strings.Contains(stderr, "--allow-domain denied.test") {
					t.Errorf("stderr does not say how to allow it:\n%s", stderr)
				}
			})
		}
	}
}
