package netproxy

import (
	"io"
	"log"
	"net"
)

// AddrKind names an address that is not on the public internet ("a
// loopback"), "" for a public one.
func AddrKind(ip net.IP) string {
	switch {
	case ip.IsLoopback():
		return "a loopback"
	case ip.IsPrivate():
		return "a private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local"
	case ip.IsUnspecified():
		return "an unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast"
	case ip.Equal(net.ParseIP("fd00:ec2::254")):
		return "a cloud metadata"
	}
	if ip4 := ip.To4(); ip4 != nil && ip4[0] == 100 && ip4[1]&0xc0 == 64 {
		return "a carrier-grade NAT"
	}
	if ip4 := ip.To4(); ip4 != nil && ip4[0] == 0 {
		return "a this-network"
	}
	return ""
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
