package tool

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/chatrepl/chat/tool/netproxy"
	"github.com/chatrepl/chat/tool/sandbox"
)

// The network's side in the box: the proxy each box gets, the variables
// that send a command's programs to it, and what a command is told.

// proxyFor is box's proxy, started at its first use: a run whose commands
// never reach the network pays nothing for it.
func (n *Network) proxyFor(box *sandbox.Box) *netproxy.Proxy {
	l, _ := box.Gate()
	if l == nil {
		return nil
	}
	owner := func(from int) func() string {
		return func() string {
			command, _ := n.commandOf(box, from)
			return command
		}
	}
	p := &netproxy.Proxy{
		Decide: func(ctx context.Context, q netproxy.Query) netproxy.Verdict {
			return n.decide(ctx, q, owner(q.From))
		},
		AddressAllowed: n.addressAllowed,
		Lookup:         n.Lookup,
		Observe: func(ev netproxy.Event) {
			ne := NetEvent{Time: time.Now(), Host: ev.Host, Port: ev.Port, Allowed: ev.Allowed, Reason: ev.Reason, Up: ev.Up, Down: ev.Down}
			tag := ""
			if !ev.Allowed {
				ne.Command, tag = n.commandOf(box, ev.From)
			}
			n.record(ne, tag)
		},
	}
	go func() { _ = p.Serve(l) }()
	return p
}

// ProxyEnv are the variables that send a command's programs to the proxy
// at addr (inside the box): curl, wget, git, Go, npm, pip, cargo and most
// HTTP libraries read one of them. Loopback inside the box stays direct.
func ProxyEnv(addr string) []string {
	u := "http://" + addr
	noProxy := "localhost,127.0.0.1,::1"
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u, strings.ToLower(k)+"="+u)
	}
	return append(env, "NO_PROXY="+noProxy, "no_proxy="+noProxy,
		"npm_config_proxy="+u, "npm_config_https_proxy="+u, "npm_config_noproxy="+noProxy,
		"PIP_PROXY="+u, "CARGO_HTTP_PROXY="+u, "YARN_HTTP_PROXY="+u, "YARN_HTTPS_PROXY="+u)
}

// withProxyEnv is env with the proxy's variables for box (replacing any
// the person's environment had: they would point outside the box) and
// command's tag, and the proxy started; env unchanged for a box without
// a way out. tag marks the command's processes; done forgets the command
// and returns what it was refused.
func (c *Confinement) withProxyEnv(box *sandbox.Box, env []string, command string) (_ []string, tag string, done func() []string) {
	if c == nil || c.Net == nil || box.Engine() == sandbox.Plain {
		return env, "", func() []string { return nil }
	}
	_, addr := box.Gate()
	if addr == "" {
		return env, "", func() []string { return nil }
	}
	c.mu.Lock()
	if c.proxies == nil {
		c.proxies = map[*sandbox.Box]*netproxy.Proxy{}
	}
	if _, ok := c.proxies[box]; !ok {
		c.proxies[box] = c.Net.proxyFor(box)
	}
	c.mu.Unlock()
	tag, done = c.Net.running(command)
	add := append(ProxyEnv(addr), commandTag+"="+tag)
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(add, func(a string) bool { return strings.HasPrefix(a, name+"=") })
	})
	return append(out, add...), tag, done
}

// refusalNote tells the model what the proxy refused a command ("" when
// nothing): a client often hides the proxy's answer behind its own error.
func refusalNote(refused []string) string {
	if len(refused) == 0 {
		return ""
	}
	return "[chat's sandbox proxy refused: " + strings.Join(refused, "; ") +
		". Only the user can allow a host: name the hosts the task needs and ask them; do not retry unchanged]\n"
}

// netSentence ends run_shell's description: what the network is.
func (c *Confinement) netSentence() string {
	if c.Net == nil {
		return ", and have no network."
	}
	return "; the network reaches only hosts the user allows, through a proxy the usual tools use (HTTPS_PROXY); no DNS."
}

// Probe runs a bash script in the box with args, as a command runs (the
// proxy's variables set), for `chat sandbox`: its output and status.
func (c *Confinement) Probe(ctx context.Context, script string, args ...string) (string, int, error) {
	box, err := c.running(true)
	if err != nil {
		return "", 0, err
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", 0, err
	}
	env, _, done := c.withProxyEnv(box, c.Env, "chat sandbox probe")
	defer done()
	var out strings.Builder
	code, err := box.Run(ctx, append([]string{bash, "-c", script, "probe"}, args...), env, c.Spec.Workdir, &out, shellWaitDelay)
	return out.String(), code, err
}
