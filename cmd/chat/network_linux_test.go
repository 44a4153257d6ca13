package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

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

// eachWorld runs f as a parallel subtest as root and as an ordinary user,
// with bubblewrap and with chat's own namespaces.
func eachWorld(t *testing.T, f func(t *testing.T, u asuser.User, bwrap string)) {
	t.Helper()
	engines := boxEngines(t)
	for _, u := range asuser.Both(t) {
		for name, bwrap := range engines {
			t.Run(u.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				f(t, u, bwrap)
			})
		}
	}
}

// strongestEngine is bubblewrap where it is installed, else chat's own
// namespaces: one engine, for the tests where the engine does not matter.
func strongestEngine(t *testing.T) string {
	engines := boxEngines(t)
	if bwrap := engines["with bubblewrap"]; bwrap != "" {
		return bwrap
	}
	return engines["without bubblewrap"]
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
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl (apt-get install curl)")
	}
	eachWorld(t, func(t *testing.T, u asuser.User, bwrap string) {
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

// TestREPLAsksPerHost: a host on no list is put to the person in the
// REPL, naming the command that asked: yes lets it through for the
// session (asked once), always for the project (kept on disk), no
// refuses it and the command is told. As root and as an ordinary user.
func TestREPLAsksPerHost(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bwrap := strongestEngine(t)
	for _, u := range asuser.Both(t) {
		t.Run(u.Name, func(t *testing.T) {
			t.Parallel()
			svc := newHostService(t, "127.0.0.2:0", "ALLOWED-BODY")
			w := netWorld(t, u, bwrap, "allow_domains = [\"127.0.0.2\"]\n")
			srv := oaitest.New(t)
			srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
				last := req.Messages[len(req.Messages)-1]
				if last.Role == "tool" {
					return oaitest.Answer{Text: "fetched: " + strings.Fields(last.Text() + " x")[0]}
				}
				host := strings.TrimPrefix(last.Text(), "fetch ")
				return oaitest.Answer{Calls: []oaitest.Call{shellCall(fmt.Sprintf("c%d", req.Index),
					fmt.Sprintf("curl -sS -m 60 http://%s.test:%d/", host, svc.port))}}
			})
			p := w.term(t)
			p.keys("export CHAT_PROXY_HOSTS=yes.test=127.0.0.2,always.test=127.0.0.2,no.test=127.0.0.2", "Enter")
			p.startChat(srv)
			answer := func(host, key string) {
				t.Helper()
				p.ask("fetch " + host)
				// The choices show once the prompt takes keys (not while the
				// person is still typing).
				if !p.waitScreen("let the sandbox connect to "+host+".test") || !p.waitScreen("[y]es  [n]o  [a]lways: connecting to "+host+".test") {
					t.Fatalf("no question for %s:\n%s", host, p.screen())
				}
				if !strings.Contains(p.screen(), "asked by: curl -sS -m 60 http://"+host+".test") {
					t.Errorf("the question does not name the command:\n%s", p.screen())
				}
				p.keys(key)
			}
			answer("yes", "y")
			if !p.waitScreen("fetched: ALLOWED-BODY") {
				t.Fatalf("yes did not let it through:\n%s", p.screen())
			}
			answer("always", "a")
			if !p.waitScreen("allowed for this project") {
				t.Fatalf("always was not said:\n%s", p.screen())
			}
			answer("no", "n")
			if !p.waitScreen("fetched: chat's") {
				t.Fatalf("no answer after no:\n%s", p.screen())
			}
			// Asked once: yes.test goes through now without a question.
			p.ask("fetch yes")
			for i := 0; i < 600 && strings.Count(p.screen(), "fetched: ALLOWED-BODY") < 3; i++ {
				time.Sleep(100 * time.Millisecond)
			}
			if n := strings.Count(p.screen(), "yes.test allowed for this session"); n != 1 || strings.Count(p.screen(), "fetched: ALLOWED-BODY") != 3 {
				t.Errorf("yes.test was answered %d times:\n%s", n, p.screen())
			}
			p.ask("/network")
			if !p.waitScreen("refused: you refused no.test") {
				t.Errorf("/network does not list the refusal:\n%s", p.screen())
			}
			kept, _ := os.ReadFile(filepath.Join(w.home, ".local/state/chat/network-allowed.json"))
			if !strings.Contains(string(kept), "always.test") || strings.Contains(string(kept), "yes.test") {
				t.Errorf("the project's hosts: %s", kept)
			}
			tools := allResults(srv)
			if !strings.Contains(tools, "proxy refused: ✗ no.test") {
				t.Errorf("the command was not told of the refusal:\n%s", tools)
			}
		})
	}
}

// TestJobServerIsForwarded: a job's `python3 -m http.server` in the box
// answers on the host's loopback at the same port while the job runs;
// the job says where (its output, its state), and the forward ends with
// it. As root and as an ordinary user, with and without bubblewrap.
func TestJobServerIsForwarded(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	eachWorld(t, func(t *testing.T, u asuser.User, bwrap string) {
		w := netWorld(t, u, bwrap, "")
		if err := os.WriteFile(filepath.Join(w.work, "index.html"), []byte("SERVED-FROM-THE-BOX\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		asuser.Give(t, u, w.work)
		free, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := free.Addr().(*net.TCPAddr).Port
		free.Close()
		var fetched string
		srv := oaitest.New(t)
		srv.SetFallback(func(req oaitest.Request) oaitest.Reply {
			last := req.Messages[len(req.Messages)-1]
			switch {
			case last.Role == "user":
				b, _ := json.Marshal(map[string]any{"command": fmt.Sprintf("python3 -m http.server %d --bind 0.0.0.0", port), "background": true})
				return oaitest.Answer{Calls: []oaitest.Call{{ID: "job", Name: "run_shell", Args: string(b)}}}
			case last.ToolCallID == "job":
				// The person opens it from the host while the job runs.
				for i := 0; i < 300 && fetched == ""; i++ {
					if res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/index.html", port)); err == nil {
						b, _ := io.ReadAll(res.Body)
						res.Body.Close()
						fetched = string(b)
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				return oaitest.Answer{Calls: []oaitest.Call{{ID: "out", Name: "job_output", Args: `{"id":1}`}}}
			}
			return oaitest.Answer{Text: "done"}
		})
		stdout, stderr, _ := w.chat(t, srv, "--json", "-p", "serve it")
		if !strings.Contains(fetched, "SERVED-FROM-THE-BOX") {
			t.Fatalf("the job's server was not reached from the host (%q):\n%s\n%s", fetched, stdout, stderr)
		}
		told := allResults(srv)
		want := fmt.Sprintf("open http://127.0.0.1:%d on this machine", port)
		if !strings.Contains(told, want) {
			t.Errorf("the job did not say where it is reached (%s):\n%s", want, told)
		}
		if !strings.Contains(stdout, fmt.Sprintf("serves http://127.0.0.1:%d", port)) {
			t.Errorf("no event says the job serves it:\n%s", stdout)
		}
		// chat has exited: the forward is gone with the job.
		if c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			t.Error("the forward outlived chat")
		}
	})
}

// TestACPAsksTheEditorForAHost: a boxed command's host on no list is put
// to the editor as a permission request naming the host and the command;
// allowed once, the command reaches it.
func TestACPAsksTheEditorForAHost(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	svc := newHostService(t, "127.0.0.2:0", "ALLOWED-BODY")
	srv := oaitest.New(t)
	line := fmt.Sprintf("curl -sS -m 60 http://ask.test:%d/", svc.port)
	srv.SetFallback(calls(shellCall("c1", line)))
	cmd := command(t, srv, "acp")
	cmd.Env = append(cmd.Env, "CHAT_PROXY_HOSTS=ask.test=127.0.0.2")
	writeConfig(t, strings.TrimPrefix(cmd.Env[0], "HOME="), "[sandbox]\nallow_domains = [\"127.0.0.2\"]\n")
	e := startEditor(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := e.newSession(ctx, cmd.Dir)
	if _, err := e.prompt(ctx, id, acp.TextBlock("fetch it")); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	titles := slices.Clone(e.titles)
	e.mu.Unlock()
	if len(titles) != 1 || !strings.Contains(titles[0], "let the sandbox connect to ask.test") || !strings.Contains(titles[0], "asked by: "+line) {
		t.Fatalf("permission titles: %q", titles)
	}
	if res := allResults(srv); !strings.Contains(res, "ALLOWED-BODY") {
		t.Errorf("the allowed host was not reached:\n%s", res)
	}
}

// TestSandboxCommandProbesHosts: chat sandbox lists the allowed hosts and
// what HOME shows, and --probe tries a host from a box: an allowed
// address is reached, a host on no list is refused with the reason.
func TestSandboxCommandProbesHosts(t *testing.T) {
	t.Parallel()
	needSandbox(t)
	svc := newHostService(t, "127.0.0.2:0", "ALLOWED-BODY")
	srv := oaitest.New(t)
	cmd := command(t, srv, "sandbox", "--allow-domain", "127.0.0.2",
		"--probe", fmt.Sprintf("127.0.0.2:%d", svc.port), "--probe", "nowhere.test:443")
	stdout, stderr, code := run(t, cmd)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"allowed by the config and --allow-domain: 127.0.0.2",
		fmt.Sprintf("probe 127.0.0.2:%d: allowed, and reached", svc.port),
		"probe nowhere.test:443: refused: nowhere.test is not on the allow list",
		"is hidden from the box but for (read-only)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
}

// TestProjectNetworkFileNeedsTrust: the hosts a project's
// .chat/network.toml lists are not allowed until the person trusts the
// file in the REPL (print mode says so and refuses them); its denials
// hold at once, over the person's own allow list.
func TestProjectNetworkFileNeedsTrust(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bwrap := strongestEngine(t)
	u := asuser.Both(t)[len(asuser.Both(t))-1] // an ordinary user where there is one
	svc := newHostService(t, "127.0.0.2:0", "ALLOWED-BODY")
	w := netWorld(t, u, bwrap, "allow_domains = [\"127.0.0.2\", \"x.blocked.test\"]\n")
	if err := os.MkdirAll(filepath.Join(w.work, ".chat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.work, ".chat/network.toml"), []byte("allow_domains = [\"proj.test\"]\ndeny_domains = [\"*.blocked.test\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asuser.Give(t, u, w.work)
	hostsEnv := "CHAT_PROXY_HOSTS=proj.test=127.0.0.2,x.blocked.test=127.0.0.2"
	lines := []string{fmt.Sprintf("curl -sS -m 30 http://proj.test:%d/", svc.port), fmt.Sprintf("curl -sS -m 30 http://x.blocked.test:%d/", svc.port)}
	printRun := func() (string, string) {
		srv := oaitest.New(t)
		srv.SetFallback(shellCalls(lines, nil))
		cmd := w.as(exec.Command(w.bin, "-p", "go"))
		cmd.Dir = w.work
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret", hostsEnv)
		_, stderr, _ := run(t, cmd)
		return allResults(srv), stderr
	}
	told, stderr := printRun()
	if strings.Contains(told, "ALLOWED-BODY") || !strings.Contains(told, "proj.test is not on the allow list") || !strings.Contains(told, "x.blocked.test is on deny_domains") {
		t.Errorf("untrusted, the project's hosts were allowed or its denials ignored:\n%s", told)
	}
	if !strings.Contains(stderr, "network.toml asks that boxed commands reach proj.test") {
		t.Errorf("print mode did not say the file waits for trust:\n%s", stderr)
	}
	p := w.term(t)
	srv := oaitest.New(t)
	p.startChat(srv)
	if !p.waitScreen("let boxed commands reach the hosts this project lists") || !p.waitScreen("[y]es  [n]o") {
		t.Fatalf("the REPL did not ask to trust the file:\n%s", p.screen())
	}
	p.keys("y")
	if !p.waitScreen("✓ trusted") {
		t.Fatalf("no trust:\n%s", p.screen())
	}
	p.ask("/quit")
	// The answer is kept in chat's state once the REPL has written it.
	for i := 0; i < 600; i++ {
		if b, _ := os.ReadFile(filepath.Join(w.home, ".local/state/chat/trusted-hooks.json")); strings.Contains(string(b), "network.toml") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	told, _ = printRun()
	if !strings.Contains(told, "ALLOWED-BODY") || !strings.Contains(told, "x.blocked.test is on deny_domains") {
		t.Errorf("trusted, proj.test was not reached, or the denial lapsed:\n%s", told)
	}
}
