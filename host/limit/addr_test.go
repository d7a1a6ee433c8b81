package limit

import "testing"

func TestAddrKey(t *testing.T) {
	for _, tc := range []struct {
		bits     int
		ip, want string
	}{
		{64, "127.0.3.4", "127.0.3.4"},
		{64, "::ffff:127.0.3.4", "127.0.3.4"}, // IPv4-mapped: the IPv4 client
		{64, "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{64, "2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{64, "2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{64, "fe80::1%eth0", "fe80::/64"},
		{48, "2001:db8:1:2::1", "2001:db8:1::/48"},
		{128, "2001:db8:1:2::1", "2001:db8:1:2::1"},
		{64, "not an address", "not an address"},
		{64, "", ""},
	} {
		SetIPv6Prefix(tc.bits)
		if got := AddrKey(tc.ip); got != tc.want {
			t.Errorf("/%d AddrKey(%q) = %q, want %q", tc.bits, tc.ip, got, tc.want)
		}
	}
	SetIPv6Prefix(DefaultIPv6Prefix)
}

// TestAddrKeyGroupsLimits: every address of one /64 spends the same
// budget; the next /64 has its own.
func TestAddrKeyGroupsLimits(t *testing.T) {
	k := New(Rate{Burst: 2, Every: 1 << 62}, 0, nil)
	for _, ip := range []string{"2001:db8::1", "2001:db8::ffff:2"} {
		if ok, _ := k.Allow(AddrKey(ip)); !ok {
			t.Fatalf("%s refused within the /64's burst", ip)
		}
	}
	if ok, _ := k.Allow(AddrKey("2001:db8::abcd:1234:5678:9")); ok {
		t.Error("a third address of the same /64 got a fresh budget")
	}
	if ok, _ := k.Allow(AddrKey("2001:db8:0:1::1")); !ok {
		t.Error("the next /64 shares the budget")
	}
}

// TestNAT64ClientsAreTheirIPv4Addresses: an IPv4 client seen through a
// NAT64 or SIIT translator (the well-known prefix 64:ff9b::/96, RFC 6052)
// carries its IPv4 address in the last 32 bits; keyed by the /64, every
// IPv4 client shared one budget and one of them spent it for all. Each is
// keyed as its IPv4 address now, as it would be reaching the server
// directly. (From a review of host/limit; failed before.)
func TestNAT64ClientsAreTheirIPv4Addresses(t *testing.T) {
	for in, want := range map[string]string{
		"64:ff9b::c000:207":  "192.0.2.7",
		"64:ff9b::cb00:7107": "203.0.113.7",
		"64:ff9b:0:0:0:1::1": "64:ff9b::/64", // outside the /96: an IPv6 address as any other
	} {
		if got := AddrKey(in); got != want {
			t.Errorf("AddrKey(%s) = %q, want %q", in, got, want)
		}
	}
}
