package login

import "net/netip"

// addressGroup is the key under which the login area's per-address limits
// (pending handshakes, failed proofs) count a client address: an IPv6
// address counts for its /64, since one host or one home owns a whole /64
// and can send from any address in it; an IPv4 address (also written as
// ::ffff:a.b.c.d) counts for itself. Text that is not an address is its own
// key.
func addressGroup(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
