package app

import (
	"cmp"
	"context"
	"net"

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
