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
