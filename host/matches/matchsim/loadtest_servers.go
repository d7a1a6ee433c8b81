package matchsim

import (
	"context"
	"math/rand/v2"

	"github.com/honmaster/masterserver/host/loadtest"
)

// The load tester's "servers" operation ("honmaster loadtest --mix
// servers=1"): a player of the run asks the server list to create a game
// on, and one of the run's game servers (the match operation's: the first
// test account is made a game host at provisioning) accepts the list's
// key, once.
var serversOperation = loadtest.Operation{Name: "servers", Requests: serversRequests, Do: loadServers,
	NeedsOperator: "making a game-host account",
	Doc: "a game server of the run heartbeats idle (set_online), a player asks the create list (server_list gametype 90), " +
		"which must show the server with an acc_key and acc_key_hash; " +
		"the server's accept_key must accept the key (official 1) and refuse it presented again (official 0)"}

// serversRequests: set_online, server_list, accept_key twice.
const serversRequests = 4

func loadServers(ctx context.Context, e *loadtest.Env, a *loadtest.Account, _ *rand.Rand) error {
	r := loadRunOf(e)
	g, err := r.takeServer(ctx, e)
	if err != nil {
		return loadFail(err)
	}
	defer r.putServer(g)
	if g.Session == "" { // a log-in that failed before: again
		if _, err := g.NewSession(ctx); err != nil {
			return loadFail(err)
		}
	}
	// A heartbeat now: the server may have been idle in the pool for
	// longer than the heartbeat timeout.
	if _, err := g.SetOnline(ctx, StateIdle); err != nil {
		return loadFail(err)
	}
	l, err := ListServers(ctx, e.Client(), a.Cookie(), GameTypeCreate, "")
	if err != nil {
		return loadFail(err)
	}
	ent, listed := l.Servers[g.ServerID]
	switch {
	case !listed:
		// (The list holds at most server_list_max servers, the lowest ids
		// first: a run with more game servers than that misses some.)
		return loadtest.Fail("server_list", "the idle server %d, heard from just now, is not among the %d listed", g.ServerID, len(l.Servers))
	case ent.CState != "1" || ent.Port != int64(g.Port):
		return loadtest.Fail("server_list", "server %d listed as %+v", g.ServerID, ent)
	case !isHex(l.KeyHash, 40):
		return loadtest.Fail("server_list", "acc_key_hash %q is no SHA-1 in hex", l.KeyHash)
	}
	off, _, err := g.AcceptKey(ctx, l.Key)
	if err != nil {
		return loadFail(err)
	}
	if off != 1 {
		return loadtest.Fail("accept_key", "a listed server refused the list's key (official %d)", off)
	}
	off, _, err = g.AcceptKey(ctx, l.Key)
	if err != nil {
		return loadFail(err)
	}
	if off != 0 {
		return loadtest.Fail("accept_key", "a key was accepted twice (official %d)", off)
	}
	return nil
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
