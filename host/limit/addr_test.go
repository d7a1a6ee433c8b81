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
