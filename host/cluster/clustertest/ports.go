// Package clustertest helps tests that start cluster members and the
// services around them (etcd) on loopback.
package clustertest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FreeAddrs returns n loopback addresses whose ports are free now, chosen
// below the kernel's ephemeral range: a port taken from that range (what
// listening on port 0 gives) can be handed, between the test's check and
// the member's own listen, to an outgoing connection of a member already
// started (a probe, a PostgreSQL connection), and the member then fails
// with "address already in use".
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				low = v
			}
		}
	}
	from := max(low-12000, 1024)
	if low-from < 100 {
		t.Fatalf("no room for test ports below the ephemeral range (it starts at %d)", low)
	}
	seen := map[int]bool{}
	var out []string
	for tries := 0; len(out) < n; tries++ {
		if tries > 1000 {
			t.Fatalf("found only %d free loopback ports in [%d, %d)", len(out), from, low)
		}
		p := from + rand.IntN(low-from)
		if seen[p] {
			continue
		}
		seen[p] = true
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ln.Close()
		out = append(out, addr)
	}
	return out
}
