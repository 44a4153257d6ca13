package main

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chatrepl/chat/internal/asuser"
	"github.com/chatrepl/chat/internal/oaitest"
)

// registries are the package registries CI reaches, read where the
// machine says (never written here): the Go module proxy and its checksum
// database, and the npm registry. Hosts it cannot reach skip the test.
type registries struct {
	goproxy, gosumdb, npm string // as the tools take them
	hosts                 []string
}

func findRegistries(t *testing.T) registries {
	t.Helper()
	for _, tool := range []string{"go", "npm", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	read := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).Output()
		if err != nil {
			t.Skipf("%s %v: %v", name, args, err)
		}
		return strings.TrimSpace(string(out))
	}
	var r registries
	for _, p := range strings.FieldsFunc(read("go", "env", "GOPROXY"), func(c rune) bool { return c == ',' || c == '|' }) {
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			r.goproxy = p
			r.hosts = append(r.hosts, u.Hostname())
			break
		}
	}
	r.gosumdb = read("go", "env", "GOSUMDB")
	if f := strings.Fields(r.gosumdb); len(f) > 0 && f[0] != "off" {
		host := strings.Split(f[0], "+")[0]
		if len(f) > 1 {
			if u, err := url.Parse(f[1]); err == nil {
				host = u.Hostname()
			}
		}
		r.hosts = append(r.hosts, host)
	}
	r.npm = read("npm", "config", "get", "registry")
	u, err := url.Parse(r.npm)
	if r.goproxy == "" || err != nil || u.Host == "" {
		t.Skip("no Go module proxy or npm registry configured")
	}
	r.hosts = append(r.hosts, u.Hostname())
	for _, probe := range []string{r.goproxy, r.npm} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodHead, probe, nil)
		res, err := http.DefaultClient.Do(req)
		cancel()
		if err != nil {
			t.Skipf("this machine does not reach %s: %v", probe, err)
		}
		res.Body.Close()
	}
	return r
}

// TestRegistriesThroughTheBox: in the box, with the registries' hosts
// allowed, `go mod download` of a small module and `npm view` succeed;
// with them not allowed both fail and chat names the hosts. As root and
// as an ordinary user, with and without bubblewrap.
func TestRegistriesThroughTheBox(t *testing.T) {
	t.Parallel()
	engines := boxEngines(t)
	reg := findRegistries(t)
	lines := []string{
		"GOTOOLCHAIN=local go mod download -json github.com/google/uuid@v1.6.0",
		"npm view --registry '" + reg.npm + "' is-number@7.0.0 version",
	}
	for _, u := range asuser.Both(t) {
		for name, bwrap := range engines {
			for _, allowed := range []bool{true, false} {
				label := u.Name + "/" + name + "/not allowed"
				list := ""
				if allowed {
					label = u.Name + "/" + name + "/allowed"
					list = "allow_domains = [\"" + strings.Join(reg.hosts, "\", \"") + "\"]\n"
				}
				t.Run(label, func(t *testing.T) {
					t.Parallel()
					w := netWorld(t, u, bwrap, list)
					srv := oaitest.New(t)
					srv.SetFallback(shellCalls(lines, map[string]any{"timeout_seconds": 300}))
					// The person's Go settings, as chat would find them.
					cmd := w.as(exec.Command(w.bin, "-p", "go"))
					cmd.Dir = w.work
					cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+srv.BaseURL(), "CHAT_MODEL=scripted-model", "OPENAI_API_KEY=sk-test-secret",
						"GOPROXY="+reg.goproxy, "GOSUMDB="+reg.gosumdb)
					stdout, stderr, _ := run(t, cmd)
					if !strings.Contains(stdout, "done") {
						t.Fatalf("chat did not answer:\n%s\n%s", stdout, stderr)
					}
					told := allResults(srv)
					gotModule := strings.Contains(told, `"Version": "v1.6.0"`) && strings.Contains(told, `"GoModSum"`)
					gotNpm := strings.Contains("\n"+told, "\n7.0.0\n")
					if allowed {
						if !gotModule || !gotNpm {
							t.Errorf("the registries were not reached through the proxy:\n%s\nstderr:\n%s", told, stderr)
						}
						return
					}
					if gotModule || gotNpm {
						t.Errorf("a registry was reached though not allowed:\n%s", told)
					}
					for _, host := range reg.hosts[:1] {
						if !strings.Contains(stderr, "the sandbox refused "+host) || !strings.Contains(told, host) {
							t.Errorf("chat did not name %s:\nstderr:\n%s\nresults:\n%s", host, stderr, told)
						}
					}
					if npmHost := reg.hosts[len(reg.hosts)-1]; !strings.Contains(stderr, "the sandbox refused "+npmHost) {
						t.Errorf("chat did not name %s:\n%s", npmHost, stderr)
					}
				})
			}
		}
	}
}
