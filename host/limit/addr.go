package limit

import (
	"net/netip"
	"sync/atomic"
)

// DefaultIPv6Prefix is how many leading bits of an IPv6 address name one
// client for every per-address limit: a /64 is what one subscriber, one
// host or one virtual machine is given, and it holds 2^64 addresses.
const DefaultIPv6Prefix = 64

// ipv6Prefix is the process's setting (limits.ipv6_prefix). It is process
// wide, not per limiter, so that every per-address key of the host — the
// listener's connection counts, the login, registration and console
// limiters, and any limiter added later — groups addresses the same way
// without each having to be handed the setting.
var ipv6Prefix atomic.Int32

func init() { ipv6Prefix.Store(DefaultIPv6Prefix) }

// SetIPv6Prefix sets how many leading bits of an IPv6 address AddrKey keeps
// (limits.ipv6_prefix; 1 to 128, 128 meaning one key per address). The
// server sets it once at start, before it serves.
func SetIPv6Prefix(bits int) {
	if bits < 1 || bits > 128 {
		bits = DefaultIPv6Prefix
	}
	ipv6Prefix.Store(int32(bits))
}

// AddrKey is the key of a client address for per-address limits: an IPv4
// address as itself (an IPv4-mapped IPv6 address as the IPv4 address), an
// IPv6 address as its network of limits.ipv6_prefix bits ("2001:db8::/64"),
// since one client owns a whole /64 and could otherwise take a fresh
// budget with every request. ip is the text form the server reads
// (wire.Request.RemoteIP); what is not an IP address (a test's name, a
// Unix socket) is its own key. Only limiter keys are grouped: records and
// logs keep the client's full address.
func AddrKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return AddrKeyOf(a)
}

// nat64 is the well-known prefix of NAT64 and SIIT translators (RFC
// 6052): an IPv4 client seen through one (a server in an IPv6-only network)
// carries its IPv4 address in the last 32 bits, and every such client
// shares the prefix's /64.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// AddrKeyOf is AddrKey of a parsed address. An address of the NAT64
// well-known prefix is keyed as the IPv4 address it carries, as the
// IPv4 client it is: keyed by its /64, one IPv4 client spent the budget
// of every other.
func AddrKeyOf(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:])).String()
	}
	if !a.Is6() {
		return a.String()
	}
	bits := int(ipv6Prefix.Load())
	if bits >= 128 {
		return a.String()
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return a.String()
	}
	return p.String()
}
