package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/listener"
	"github.com/chatrepl/chat/tool"
)

// watchNetwork makes the box's connections events of every front end,
// and the hosts on no list questions for the person where one can be
// asked (print mode refuses them, and says which and how to allow).
func watchNetwork(n *tool.Network, ls *listener.List, a tool.Approver) {
	if n == nil {
		return
	}
	n.Observe = func(e tool.NetEvent) {
		ls.Emit(listener.Network{Host: e.Host, Port: e.Port, Command: e.Command, Allowed: e.Allowed, Reason: e.Reason, Up: e.Up, Down: e.Down})
	}
	if a != nil {
		n.Ask = askHost(a)
	}
}

// askHost puts a host a boxed command asks for to the person: yes (this
// session), always (this project, from now on) or no.
func askHost(a tool.Approver) func(ctx context.Context, hostport, command string) tool.Verdict {
	return func(ctx context.Context, hostport, command string) tool.Verdict {
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			host = hostport
		}
		req := tool.Request{Tool: "network", NoModel: true, AlwaysScope: "this project",
			Review: tool.Review{NeedsApproval: true, Summary: "let the sandbox connect to " + hostport + "?",
				Detail:  "asked by: " + cmp.Or(command, "a command in the box"),
				Warning: "all of " + host + " becomes reachable for boxed commands (the proxy does not look inside TLS)"},
			Always:  []tool.Grant{{Kind: tool.GrantNet, Value: host}},
			Granted: "✓ " + host + " allowed for this session"}
		d, err := a.Approve(ctx, req)
		if err != nil {
			return tool.Deny
		}
		return d.Verdict
	}
}

// projectNetwork is a project's network file waiting for the person's
// trust: its hosts are not allowed until then (its denials hold at once).
type projectNetwork struct {
	path    string
	content []byte
	allow   []string
}

func (p *projectNetwork) digest() string {
	sum := sha256.Sum256(p.content)
	return "network:" + hex.EncodeToString(sum[:])
}

// applyProjectNetwork reads the project's network file: its denials apply
// now; its hosts too when the person trusted this content, else it is
// returned to be asked about (nil: nothing to ask).
func applyProjectNetwork(getenv func(string) string, workdir string, n *tool.Network) (*projectNetwork, error) {
	if n == nil {
		return nil, nil
	}
	path := filepath.Join(workdir, config.ProjectNetworkFile)
	f, content, err := config.LoadProjectNetwork(path)
	if err != nil || f == nil {
		return nil, err
	}
	n.Deny = append(n.Deny, f.DenyDomains...)
	if len(f.AllowDomains) == 0 {
		return nil, nil
	}
	p := &projectNetwork{path: path, content: content, allow: f.AllowDomains}
	if trustStore(getenv).read()[path] == p.digest() {
		n.AllowProjectFile(p.allow)
		return nil, nil
	}
	return p, nil
}

// note is what a front end without a prompt says of an untrusted file.
func (p *projectNetwork) note() string {
	return fmt.Sprintf("chat: %s asks that boxed commands reach %s; they are not allowed until you trust the file (start the REPL here once and answer, or pass --allow-domain)", p.path, strings.Join(p.allow, ", "))
}

// askNetworkTrust puts the project's network file to the person.
func askNetworkTrust(ctx context.Context, getenv func(string) string, a IdleAsker, n *tool.Network, p *projectNetwork) {
	req := tool.Request{Tool: "project network", NoModel: true,
		Granted: "✓ trusted " + p.path + ": boxed commands may reach " + strings.Join(p.allow, ", ") + " (a changed file asks again)",
		Review: tool.Review{NeedsApproval: true,
			Summary: "let boxed commands reach the hosts this project lists (" + config.ProjectNetworkFile + ")?",
			Detail:  p.path + ":\n" + strings.TrimRight(string(p.content), "\n"),
			Warning: "each host is allowed whole (the proxy does not look inside TLS)"}}
	dec, err := a.AskAtIdle(ctx, req, func(dec tool.Decision) {
		if dec.Verdict != tool.Deny {
			n.AllowProjectFile(p.allow)
		}
	})
	if err != nil || dec.Verdict == tool.Deny {
		return
	}
	_ = trustStore(getenv).update(func(m map[string]string) { m[p.path] = p.digest() })
}
