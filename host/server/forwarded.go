package server

import (
	"bytes"
	"net"
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/config"
)

// ClientAddress is the client's address as the game listener reads it,
// for another listener that sits behind the same reverse proxies (the
// operator listener's web console): peer is the connection's address, as
// net/http's Request.RemoteAddr ("192.0.2.1:5123") or as an IP alone, and
// lines are the request's X-Forwarded-For lines in order
// (Header.Values). Without trustForwardedFor (server.trust_forwarded_for),
// or when the header is not to be believed (see clientAddress: no usable
// entry, or a peer that is not one of trusted, server.trusted_proxies), it
// is peer's IP.
func ClientAddress(peer string, lines []string, trustForwardedFor bool, trusted []config.Prefix) string {
	if host, _, err := net.SplitHostPort(peer); err == nil {
		peer = host
	}
	if !trustForwardedFor || len(lines) == 0 {
		return peer
	}
	bs := make([][]byte, len(lines))
	for i, l := range lines {
		bs[i] = []byte(l)
	}
	if ip := clientAddress(peer, bs, trusted); ip != "" {
		return ip
	}
	return peer
}

// clientAddress is the address of the client a request came from through
// reverse proxies (server.trust_forwarded_for): the right-most address of
// X-Forwarded-For that is not a trusted proxy (server.trusted_proxies),
// read over every line of the header in order (lines is what the request
// carried; several lines are one list, RFC 9110 §5.3). peer is the address
// the connection came from: "" is answered when the header is not to be
// believed (no usable entry, or a peer that is not one of trusted), and the
// caller keeps peer.
//
// Each proxy appends the address it got the request from; whatever is
// left of a proxy's entry came from further out, and the left-most
// entries are whatever the client wrote. So the walk goes from the right,
// over the trusted proxies' own addresses, and stops at the first
// address that is not one: the last hop no trusted proxy vouches for,
// which is the client (or its own proxy). Taking the first line (or the
// first entry) would let a client pick its address: HAProxy's "option
// forwardfor" and several cloud balancers add a line of their own after
// the client's instead of appending to it.
//
// An entry that is not an address (a port is allowed, as
// "203.0.113.7:5123" or "[2001:db8::7]:5123"; "unknown" is not) ends the
// walk: the nearest trusted address before it is the client, or peer.
//
// With trusted empty, the peer is the one trusted proxy (the setting's
// meaning before server.trusted_proxies): the right-most entry wins.
func clientAddress(peer string, lines [][]byte, trusted []config.Prefix) string {
	if len(trusted) > 0 {
		p, err := netip.ParseAddr(peer)
		// A link-local peer's zone (fe80::1%eth0, as net/http gives
		// it) is no part of the network: a zoned address is never in
		// a prefix.
		if err != nil || !inPrefixes(p.Unmap().WithZone(""), trusted) {
			return ""
		}
	}
	nearest := ""
	for i := len(lines) - 1; i >= 0; i-- {
		entries := bytes.Split(lines[i], []byte{','})
		for j := len(entries) - 1; j >= 0; j-- {
			e := strings.TrimSpace(string(entries[j]))
			if e == "" && len(entries) == 1 {
				continue // an empty line adds no entry
			}
			a, ok := parseHop(e)
			if !ok {
				return nearest
			}
			if !inPrefixes(a, trusted) {
				return a.String()
			}
			nearest = a.String()
		}
	}
	return nearest
}

// parseHop reads an X-Forwarded-For entry: an address, with or without a
// port.
func parseHop(e string) (netip.Addr, bool) {
	if len(e) > 64 {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(e); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(e); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func inPrefixes(a netip.Addr, ps []config.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the client's address of the request in ctx, for the limits
// and every log line of it, whether or not its body could be read: the
// connection's peer, or, with server.trust_forwarded_for, the address
// clientAddress finds in X-Forwarded-For.
func (s *Server) clientIP(ctx *fasthttp.RequestCtx) string {
	peer := ctx.RemoteIP().String()
	if c := s.conf().Server; c.TrustForwardedFor {
		if ip := clientAddress(peer, ctx.Request.Header.PeekAll("X-Forwarded-For"), c.TrustedProxies); ip != "" {
			return ip
		}
	}
	return peer
}
