package config

import (
	"net/netip"
	"testing"
)

// TestPrefixUnmapsMappedNetworks: an IPv4-mapped network in
// server.trusted_proxies is read as the IPv4 network it stands for.
// Client addresses are unmapped before they are compared, and an IPv6
// network never contains an IPv4 address, so ::ffff:10.0.0.0/104 was
// accepted and never matched: the proxy was never trusted, and every
// client behind it shared its address's budgets.
func TestPrefixUnmapsMappedNetworks(t *testing.T) {
	for in, want := range map[string]string{
		"::ffff:10.0.0.0/104": "10.0.0.0/8",
		"::ffff:192.0.2.7":    "192.0.2.7/32",
		"10.0.0.0/8":          "10.0.0.0/8",
		"2001:db8::/32":       "2001:db8::/32",
	} {
		var p Prefix
		if err := p.UnmarshalText([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if p.String() != want || !p.Contains(netip.MustParsePrefix(want).Addr()) {
			t.Errorf("%s read as %s, want %s", in, p, want)
		}
	}
	var p Prefix
	if err := p.UnmarshalText([]byte("::ffff:0:0/80")); err == nil {
		t.Errorf("a mapped network shorter than /96 accepted as %s", p)
	}
}
