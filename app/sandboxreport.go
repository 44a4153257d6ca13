package app

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/chatrepl/chat/config"
	"github.com/chatrepl/chat/tool"
)

// SandboxReport is what `chat sandbox` says besides the engines' probes:
// the box's network (what is allowed, and from where) and what it shows
// of HOME. Each host in probe is tried from a box, as a command would
// reach it: through the proxy, with the lists as they are (nobody is
// asked).
func SandboxReport(ctx context.Context, env Env, cfg config.Config, probe []string) (string, error) {
	shell, err := confinement(env, cfg)
	if err != nil {
		return "", err
	}
	defer shell.Close()
	var b strings.Builder
	b.WriteString("\nNetwork: " + shell.Net.Report() + "\n")
	if home, visible := shell.Spec.Home, shell.Spec.HomeVisible; home != "" {
		fmt.Fprintf(&b, "\nHOME (%s) is hidden from the box but for (read-only):\n", home)
		for _, p := range visible {
			b.WriteString("  " + p + "\n")
		}
		b.WriteString("  (and the working directory when it is under HOME; [sandbox] home_read adds more)\n")
	}
	for _, target := range probe {
		b.WriteString("\n" + probeHost(ctx, shell, target) + "\n")
	}
	return b.String(), nil
}

// probeHost tries host[:port] from a box: a CONNECT through the proxy,
// the way a command's HTTPS request goes.
func probeHost(ctx context.Context, shell *tool.Confinement, target string) string {
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		host, port = target, "443"
	}
	hp := net.JoinHostPort(host, port)
	script := `p=${HTTPS_PROXY#http://}; exec 3<>"/dev/tcp/${p%:*}/${p##*:}" || exit 9; printf 'CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' "$1" "$1" >&3; IFS= read -r line <&3; echo "$line"`
	out, code, err := shell.Probe(ctx, script, hp)
	if err != nil {
		return "probe " + hp + ": " + err.Error()
	}
	for _, e := range shell.Net.Log() {
		if e.Host == strings.ToLower(host) {
			if !e.Allowed {
				return "probe " + hp + ": refused: " + e.Reason
			}
			if e.Reason != "" {
				return "probe " + hp + ": allowed, but the connection failed: " + e.Reason
			}
		}
	}
	if code == 0 && strings.Contains(out, " 200") {
		return "probe " + hp + ": allowed, and reached"
	}
	return fmt.Sprintf("probe %s: %s (exit %d)", hp, strings.TrimSpace(out), code)
}
