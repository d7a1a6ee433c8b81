package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// Prefix is an entry of server.trusted_proxies: a network ("10.0.0.0/8",
// "2001:db8::/32") or one address ("192.0.2.10", read as a /32 or /128).
type Prefix struct{ netip.Prefix }

// UnmarshalText reads a network or an address.
func (p *Prefix) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	if pf, err := netip.ParsePrefix(s); err == nil {
		pf, ok := UnmapPrefix(pf)
		if !ok {
			return fmt.Errorf("invalid proxy network %q: an IPv4-mapped network needs a prefix of at least 96 bits (::ffff:10.0.0.0/104 is 10.0.0.0/8)", text)
		}
		p.Prefix = pf.Masked()
		return nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return fmt.Errorf("invalid proxy address %q: want an address (192.0.2.10) or a network (10.0.0.0/8, 2001:db8::/32)", text)
	}
	a = a.Unmap()
	p.Prefix = netip.PrefixFrom(a, a.BitLen())
	return nil
}

// MarshalText writes the network.
func (p Prefix) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmapPrefix turns an IPv4-mapped IPv6 network (::ffff:10.0.0.0/104) into
// the IPv4 network it stands for (10.0.0.0/8): client addresses are
// unmapped before they are compared, and an IPv6 network never contains
// an IPv4 address, so the mapped form would never match. ok is false for
// a mapped network shorter than /96, which is no IPv4 network. Other
// networks are returned as they are.
func UnmapPrefix(pf netip.Prefix) (_ netip.Prefix, ok bool) {
	if !pf.Addr().Is4In6() {
		return pf, true
	}
	if pf.Bits() < 96 {
		return pf, false
	}
	return netip.PrefixFrom(pf.Addr().Unmap(), pf.Bits()-96), true
}
