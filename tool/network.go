package tool

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chatrepl/chat/internal/hostpat"
	"github.com/chatrepl/chat/tool/netproxy"
	"github.com/chatrepl/chat/tool/sandbox"
)

// Network is the run's rules for the box's way out: which hosts a boxed
// command may reach through chat's proxy. Nothing is allowed by default;
// Deny wins over every allowance; a host on no list is put to Ask (the
// person: once per host and run), else refused with how to allow it.
type Network struct {
	Allow []string // the config's allow_domains and --allow-domain
	Deny  []string // deny_domains
	// Project lists and keeps what the person allowed "always" in this
	// project (nil: "always" is not offered).
	Project *ProjectHosts
	// Ask puts a host to the person: Allow, AllowAlways (this project from
	// now on) or Deny. Nil where nobody can be asked (print mode).
	Ask func(ctx context.Context, host, command string) Verdict
	// Observe hears every connection (the front ends' event).
	Observe func(NetEvent)
	// Lookup resolves names (nil: the system's resolver).
	Lookup func(ctx context.Context, host string) ([]net.IPAddr, error)

	mu       sync.Mutex
	file     []string                 // the project's network file's hosts, once trusted
	session  []string                 // hosts allowed for this run
	refused  []string                 // hosts the person refused in this run
	pending  map[string]chan struct{} // a question on screen, by host
	log      []NetEvent
	asking   sync.Mutex        // one question at a time
	commands map[string]string // what runs in the box, by the tag in its environment
	lastID   int
	// refusedTo are the refusals each running command met, by its tag:
	// its result tells the model (a client often hides the proxy's answer).
	refusedTo map[string][]string
}

// commandTag marks each command's environment, so that a connection can
// be traced to the command that asked for it (only to name it).
const commandTag = "CHAT_SANDBOX_COMMAND"

// running notes a command about to run in the box; its tag goes in the
// command's environment, and done forgets it and returns the refusals it
// met.
func (n *Network) running(command string) (tag string, done func() []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lastID++
	tag = strconv.Itoa(n.lastID)
	if n.commands == nil {
		n.commands, n.refusedTo = map[string]string{}, map[string][]string{}
	}
	n.commands[tag] = command
	return tag, func() []string {
		n.mu.Lock()
		defer n.mu.Unlock()
		refused := n.refusedTo[tag]
		delete(n.commands, tag)
		delete(n.refusedTo, tag)
		return refused
	}
}

// commandOf names the command behind a connection from port in box, and
// its tag.
func (n *Network) commandOf(box *sandbox.Box, port int) (command, tag string) {
	tag, line := box.ConnOwner(port, commandTag)
	n.mu.Lock()
	defer n.mu.Unlock()
	return cmp.Or(n.commands[tag], line), tag
}

// NetEvent is one connection a boxed command asked for.
type NetEvent struct {
	Time    time.Time
	Host    string
	Port    int
	Command string // the command that asked, where it could be found
	Allowed bool
	Reason  string // why it was refused (or failed)
	Up      int64  // bytes sent
	Down    int64  // bytes received
}

// String is the event in one line: "✓ proxy.golang.org:443 (12 kB ↓)".
func (e NetEvent) String() string {
	hp := net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	if !e.Allowed {
		return "✗ " + hp + " refused: " + e.Reason
	}
	s := "✓ " + hp + " (" + bytesString(e.Down) + " ↓ " + bytesString(e.Up) + " ↑)"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

func bytesString(n int64) string {
	switch {
	case n >= 10<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 10<<10:
		return strconv.FormatInt(n>>10, 10) + " kB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// CheckHosts says what is wrong with a list of patterns.
func CheckHosts(what string, pats []string) error {
	for _, p := range pats {
		if why := hostpat.Check(p); why != "" {
			return fmt.Errorf("%s %q: %s", what, p, why)
		}
	}
	return nil
}

// Allowed are the hosts allowed now: the lists, the project's and this
// run's answers.
func (n *Network) Allowed() (config, project, session []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.Project != nil {
		project = n.Project.Hosts()
	}
	return slices.Clone(n.Allow), project, slices.Clone(n.session)
}

// AllowProjectFile allows the hosts of the project's network file (the
// person trusts it).
func (n *Network) AllowProjectFile(hosts []string) {
	n.mu.Lock()
	n.file = slices.Clone(hosts)
	n.mu.Unlock()
}

// AllowForSession allows host for the rest of the run (/network allow).
func (n *Network) AllowForSession(host string) error {
	if why := hostpat.Check(host); why != "" {
		return fmt.Errorf("%q: %s", host, why)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.refused = slices.DeleteFunc(n.refused, func(h string) bool { return hostpat.Pattern(host).Matches(h) })
	if !slices.Contains(n.session, host) {
		n.session = append(n.session, host)
	}
	return nil
}

// Log is this run's connections, oldest first.
func (n *Network) Log() []NetEvent {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.log)
}

// listed is the lists' verdict on host: allowed, denied (why) or neither.
func (n *Network) listed(host string) (allow bool, denied string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case hostpat.AnyMatches(n.Deny, host):
		return false, host + " is on deny_domains"
	case hostpat.AnyMatches(n.Allow, host), hostpat.AnyMatches(n.session, host), hostpat.AnyMatches(n.file, host),
		n.Project != nil && hostpat.AnyMatches(n.Project.Hosts(), host):
		return true, ""
	case slices.Contains(n.refused, host):
		return false, "you refused " + host + " in this session" + n.howToAllow(host)
	}
	return false, ""
}

// howToAllow is the advice a refusal ends with.
func (n *Network) howToAllow(host string) string {
	return "; to allow it: --allow-domain " + host + ", [sandbox] allow_domains in the config, or /network allow " + host + " in the REPL"
}

// addressAllowed: a non-public address is reached only when the person
// listed that very address.
func (n *Network) addressAllowed(ip net.IP) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	lists := [][]string{n.Allow, n.session, n.file}
	if n.Project != nil {
		lists = append(lists, n.Project.Hosts())
	}
	for _, l := range lists {
		for _, p := range l {
			if pip := net.ParseIP(strings.Trim(p, "[]")); pip != nil && pip.Equal(ip) {
				return !hostpat.AnyMatches(n.Deny, ip.String())
			}
		}
	}
	return false
}

// decide is the proxy's question: may the box reach q.Host? command names
// who asked (found only when a person must be asked).
func (n *Network) decide(ctx context.Context, q netproxy.Query, command func() string) netproxy.Verdict {
	if ok, denied := n.listed(q.Host); ok || denied != "" {
		return netproxy.Verdict{Allow: ok, Reason: denied}
	}
	if n.Ask == nil {
		return netproxy.Verdict{Reason: q.Host + " is not on the allow list" + n.howToAllow(q.Host)}
	}
	// One question per host: connections that come while it is on screen
	// wait for its answer.
	n.mu.Lock()
	if wait, ok := n.pending[q.Host]; ok {
		n.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return netproxy.Verdict{Reason: "the connection ended while you were asked"}
		}
		ok, denied := n.listed(q.Host)
		return netproxy.Verdict{Allow: ok, Reason: cmp.Or(denied, "not allowed")}
	}
	if n.pending == nil {
		n.pending = map[string]chan struct{}{}
	}
	done := make(chan struct{})
	n.pending[q.Host] = done
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.pending, q.Host)
		n.mu.Unlock()
		close(done)
	}()
	n.asking.Lock()
	v := n.Ask(ctx, net.JoinHostPort(q.Host, strconv.Itoa(q.Port)), command())
	n.asking.Unlock()
	switch v {
	case AllowAlways:
		if n.Project != nil {
			if err := n.Project.Add(q.Host); err != nil {
				_ = n.AllowForSession(q.Host)
				return netproxy.Verdict{Allow: true, Reason: "allowed for this session only (" + err.Error() + ")"}
			}
			return netproxy.Verdict{Allow: true}
		}
		fallthrough
	case Allow:
		_ = n.AllowForSession(q.Host)
		return netproxy.Verdict{Allow: true}
	}
	n.mu.Lock()
	n.refused = append(n.refused, q.Host)
	n.mu.Unlock()
	return netproxy.Verdict{Reason: "you refused " + q.Host + n.howToAllow(q.Host)}
}

// record keeps ev in the run's log (and a refusal for the result of the
// command tagged), and tells Observe.
func (n *Network) record(ev NetEvent, tag string) {
	n.mu.Lock()
	if _, running := n.commands[tag]; running && !ev.Allowed {
		if line := ev.String(); !slices.Contains(n.refusedTo[tag], line) && len(n.refusedTo[tag]) < 10 {
			n.refusedTo[tag] = append(n.refusedTo[tag], line)
		}
	}
	n.log = append(n.log, ev)
	if len(n.log) > 2000 {
		n.log = slices.Delete(n.log, 0, 1000)
	}
	n.mu.Unlock()
	if n.Observe != nil {
		n.Observe(ev)
	}
}

// Report is /network: what is allowed and from where, and this run's
// connections by host (the last ones first).
func (n *Network) Report() string {
	if n == nil {
		return "no network for boxed commands in this run (no sandbox, or one without a network namespace)"
	}
	allow, project, session := n.Allowed()
	var b strings.Builder
	list := func(what string, hosts []string) {
		if len(hosts) == 0 {
			hosts = []string{"none"}
		}
		b.WriteString(what + strings.Join(hosts, ", ") + "\n")
	}
	b.WriteString("boxed commands reach the network only through chat's proxy, by host name (TLS is not looked into: an allowed host is allowed whole)\n")
	list("allowed by the config and --allow-domain: ", allow)
	list("allowed in this project (answered \"always\"): ", project)
	n.mu.Lock()
	file := slices.Clone(n.file)
	n.mu.Unlock()
	if len(file) > 0 {
		list("allowed by the project's .chat/network.toml (you trusted it): ", file)
	}
	list("allowed in this session: ", session)
	if len(n.Deny) > 0 {
		list("denied (deny_domains): ", n.Deny)
	}
	type total struct {
		allowed, refused int
		down, up         int64
		reason           string
	}
	byHost := map[string]*total{}
	var order []string
	for _, e := range n.Log() {
		hp := net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
		t := byHost[hp]
		if t == nil {
			t = &total{}
			byHost[hp] = t
			order = append(order, hp)
		}
		if e.Allowed {
			t.allowed++
			t.down += e.Down
			t.up += e.Up
		} else {
			t.refused++
			t.reason = e.Reason
		}
	}
	if len(order) == 0 {
		b.WriteString("no connection yet in this session")
		return b.String()
	}
	b.WriteString("this session's connections:")
	for _, hp := range order {
		t := byHost[hp]
		if t.allowed > 0 {
			fmt.Fprintf(&b, "\n  ✓ %s  %d× (%s ↓ %s ↑)", hp, t.allowed, bytesString(t.down), bytesString(t.up))
		}
		if t.refused > 0 {
			fmt.Fprintf(&b, "\n  ✗ %s  %d× refused: %s", hp, t.refused, t.reason)
		}
	}
	return b.String()
}

// Forget takes host off this session's and this project's allowances.
func (n *Network) Forget(host string) (bool, error) {
	n.mu.Lock()
	had := slices.Contains(n.session, host)
	n.session = slices.DeleteFunc(n.session, func(h string) bool { return h == host })
	n.mu.Unlock()
	if n.Project == nil {
		return had, nil
	}
	removed, err := n.Project.Remove(host)
	return had || removed, err
}
