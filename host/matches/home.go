package matches

import (
	"strings"

	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// hostOf names the game-host account a request of the area is about
// (server.Route.Account), so that in cluster mode it is served on the
// host's home node, where the host's actor makes every write of its
// servers and matches, however the load balancer spreads the game
// servers' requests:
//
//   - replay_auth, new_session and resubmit_stats: the account of the
//     login's NAME (the part before the colon), through the login index,
//     as the cluster finds a player's login for pre_auth;
//   - every other function: the account of the server session (its
//     token names the host) when the session is live, even for c_conn,
//     whose "cookie" is the connecting player's (the player's account is
//     only read).
//
// Anything else (get_upgrades, whose only account is the player's
// cookie; a malformed or ended session, an unknown login) names none, and
// the host's rule applies (the cookie's account, else served where it
// arrived, where it is refused as it would be anywhere).
func (a *Area) hostOf(r *wire.Request) (storage.AccountID, bool) {
	fn := r.Query.Get("f")
	if fn == "" {
		fn = r.Form.Get("f")
	}
	switch fn {
	case FuncReplayAuth, FuncNewSession, FuncResubmitStats:
		name, _, ok := strings.Cut(r.Value("login"), ":") // as the handlers decode it
		if !ok || name == "" || len(name) > 4*login.MaxLoginLength {
			return 0, false
		}
		id, err := a.sys.DB().LoginID(name)
		return id, err == nil
	}
	t, ok := parseToken(r.Form.Get("session")) // the form only, as the session functions read it (Area.session)
	if !ok || t.id == 0 {
		return 0, false
	}
	// As the host's rule checks a cookie's session: only a live session
	// sends the request to its host's node.
	s, err := servers.Get(a.sys.DB(), t.owner, storage.KeyUint32(t.id))
	if err != nil || s.ShutDown || !t.matches(s.SecretHash) {
		return 0, false
	}
	return t.owner, true
}
