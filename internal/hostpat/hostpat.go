// Package hostpat reads the host patterns of the sandbox's allow and deny
// lists. It is a leaf: it imports nothing of chat.
package hostpat

import (
	"net"
	"strings"
)

// Pattern is one entry of an allow or deny list: a host name
// ("example.org": that name only), a wildcard ("*.example.org": every
// name under it, not the name itself), or an IP address.
type Pattern string

// Matches reports whether host (lower-case, no trailing dot) is covered.
func (p Pattern) Matches(host string) bool {
	pat := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(string(p))), ".")
	if ip := net.ParseIP(strings.Trim(pat, "[]")); ip != nil {
		h := net.ParseIP(host)
		return h != nil && h.Equal(ip)
	}
	if rest, ok := strings.CutPrefix(pat, "*."); ok {
		return rest != "" && strings.HasSuffix(host, "."+rest)
	}
	return pat != "" && pat == host
}

// Check says what is wrong with a list entry ("" when nothing).
func Check(p string) string {
	pat := strings.TrimSpace(p)
	switch {
	case pat == "":
		return "an empty entry"
	case pat == "*" || pat == "*.":
		return "\"*\" would allow every host: name the domains"
	case strings.ContainsAny(pat, "/: ") && net.ParseIP(strings.Trim(pat, "[]")) == nil:
		return "a host name, a *.domain or an IP address, without scheme, port or path"
	case strings.Contains(strings.TrimPrefix(pat, "*."), "*"):
		return "a wildcard only as the first label (*.example.org)"
	}
	return ""
}

// AnyMatches reports whether one of pats covers host.
func AnyMatches[S ~string](pats []S, host string) bool {
	for _, p := range pats {
		if Pattern(p).Matches(host) {
			return true
		}
	}
	return false
}
