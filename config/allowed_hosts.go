package config

import (
	"fmt"
	"net/netip"
	"strings"
)

// validateAllowedHosts checks operator.allowed_hosts: each entry is a bare
// host name as a browser puts it in the Host header ("console.example.org",
// an internationalised name in its xn-- form) or an IP address, which the
// listener accepts anyway but which counts for the Origin check. The
// sentences say what to write instead of a URL, a host:port or a wildcard.
func validateAllowedHosts(ps *problems, hosts []string) {
	for i, h := range hosts {
		key := fmt.Sprintf("operator.allowed_hosts[%d]", i)
		if msg := allowedHostProblem(h); msg != "" {
			ps.add(key, "%s", msg)
		}
	}
}

// allowedHostProblem says what is wrong with one entry of
// operator.allowed_hosts ("": nothing).
func allowedHostProblem(h string) string {
	const want = "must be a host name such as \"console.example.org\""
	switch {
	case h == "":
		return "must not be empty"
	case strings.Contains(h, "://"):
		return fmt.Sprintf("%s, without a scheme: got %q", want, h)
	case strings.ContainsAny(h, "/?#@"):
		return fmt.Sprintf("%s, not a URL: got %q", want, h)
	case strings.Contains(h, "*"):
		return fmt.Sprintf("%s: wildcards are not supported, list each name (got %q)", want, h)
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil && a.Zone() == "" {
		return "" // an address: see the function's comment
	}
	if strings.Contains(h, ":") {
		return fmt.Sprintf("%s, without a port (any port is accepted): got %q", want, h)
	}
	name := strings.TrimSuffix(h, ".")
	if len(name) > 253 {
		return fmt.Sprintf("%s of at most 253 characters, got %d", want, len(name))
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Sprintf("%s (dot-separated labels of 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen): got %q", want, h)
		}
		for _, r := range label {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			case r > 0x7f:
				return fmt.Sprintf("%s: write an internationalised name in its ASCII form (xn--...), as browsers send it: got %q", want, h)
			default:
				return fmt.Sprintf("%s (letters, digits, hyphens and dots only): got %q", want, h)
			}
		}
	}
	return ""
}
