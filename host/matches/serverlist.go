package matches

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/honmaster/masterserver/config"
	"net/http"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// The client's server list (client_requester.php?f=server_list) and its
// connection keys.
//
// # The list
//
// gametype 90 lists the servers a player may create a game on: online
// game servers that are idle (c_state 1; a sleeping server, c_state 0, is
// one its manager put to sleep, and is not offered). gametype 10 lists the
// joinable ones: online servers in a lobby (c_state 2, before or after
// start_game, until the match begins; a server in game, c_state 3, is
// not joinable). Every other gametype is refused with HTTP 422 and the
// PHP error array, as the notes' NEXUS does. A server is online while it
// has a session (new_session, not shut down), its host still holds the
// game-host role, and it was heard from within heartbeat_timeout (by this
// node, or as written): a server past its heartbeat timeout never
// appears. region, when given, keeps the servers whose location starts
// with it, case-insensitively ("US" lists USE and USW, as NEXUS's
// comment intends; "" lists every region). At most server_list_max
// servers, the lowest ids first. Each entry is the notes' (NEXUS's
// strings): server_id, ip (the address the server reported, else the one
// it logged in from), port, location, and c_state "1" (the create list)
// or class "1" (the join list; NEXUS sends "1", its meaning is not
// known).
//
// # The key: bound to the player and the servers listed, accepted once
//
// Each list carries a fresh acc_key: a token (records.go) of the player's
// account id, a random key number and a 16-byte random secret. The
// player's actor stores, under the key number (keyspace matches.listkey),
// the SHA-256 of the secret, the ids of the servers the list showed and
// the expiry (key_lifetime). accept_key of game server S answers official
// 1 for a key when it is stored for its player, its secret matches
// (constant time), it has not expired, and S is one of the servers its
// list showed; and it deletes the key in the same commit of the player's
// actor (one writer: two servers presenting the same key at once cannot
// both have it). So a key is accepted once, by a server it was meant for;
// forged (no such key number, a wrong secret), expired, or presented again
// — by another player who got hold of it, or to another server — it
// answers official 0. A key presented to a server its list did not show
// answers 0 and is not used up (a server cannot spend keys meant for
// others). A player keeps at most maxListKeys live keys (the earliest
// issued go first; expired ones are dropped at each issue), so a client asking for
// several lists (the create and the join list, a refresh) may join with
// the key of any of them. A list that shows no server stores nothing: its
// key is accepted nowhere. The keys of IssueKey (one server, key number
// 0) are accepted once too.
//
// acc_key_hash is the lowercase hex SHA-1 of acc_key, the player's cookie
// and chat_salt, which the chat server can compute too.
//
// Asking for a list writes the player's account (its key): a player may
// ask server_list_burst lists at once, one more every server_list_every,
// and one address (an IPv6 network of limits.ipv6_prefix bits) ten times
// as many; past that the request is refused with 429.

// Functions of /client_requester.php the area serves.
const (
	FuncServerList        = "server_list"
	FuncChatClientConnect = "chatclient_connect"
)

// Game types of server_list.
const (
	gameTypeJoin   = "10"
	gameTypeCreate = "90"
)

// maxListKeys is how many live list keys one player keeps.
const maxListKeys = 16

// Server states (c_state) the lists show.
const (
	stateIdle  = 1
	stateLobby = 2
)

// listKeys are the keys of a player's server lists, by key number
// (KeyUint32).
var listKeys = storage.NewAccountKeyspace("matches.listkey", storage.Proto[*pb.ListKey]())

// clientSide is the area's state for players and chat servers, built at
// first use from the settings.
type clientSide struct {
	once       sync.Once
	byAccount  *limit.Keyed // built by New, rates by SetRates
	byAddress  *limit.Keyed
	chatAllow  []netip.Prefix
	allowedErr error
}

func (a *Area) clientState() *clientSide {
	c := &a.client
	c.once.Do(func() {
		c.chatAllow, c.allowedErr = parseNetworks(a.set.ChatServers)
	})
	return c
}

// parseNetworks reads addresses ("10.0.0.5", "::1") and CIDR networks
// ("10.0.0.0/8") into prefixes.
func parseNetworks(list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		s = strings.TrimSpace(s)
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or a CIDR network", s)
			}
			// Callers' addresses are unmapped: so is a mapped network.
			p, ok := config.UnmapPrefix(p)
			if !ok {
				return nil, fmt.Errorf("%q: an IPv4-mapped network needs a prefix of at least 96 bits (::ffff:192.0.2.0/120 is 192.0.2.0/24)", s)
			}
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil || ip.Zone() != "" {
			return nil, fmt.Errorf("%q is not an address or a CIDR network", s)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

// validateClient checks the server list's and the chat servers' settings.
func (s *Settings) validateClient(p func(key, format string, args ...any)) {
	if s.ServerListMax < 1 || s.ServerListMax > 10_000 {
		p("server_list_max", "must be 1..10000, got %d", s.ServerListMax)
	}
	if s.ServerListBurst < 1 || s.ServerListBurst > 100_000 {
		p("server_list_burst", "must be 1..100000, got %d", s.ServerListBurst)
	}
	if d := s.ServerListEvery.Duration; d < 10*time.Millisecond || d > time.Hour {
		p("server_list_every", "must be 10ms..1h, got %s", s.ServerListEvery)
	}
	if len(s.ChatSalt) > 256 {
		p("chat_salt", "must be at most 256 bytes, got %d", len(s.ChatSalt))
	}
	if len(s.ChatServers) > 1000 {
		p("chat_servers", "must list at most 1000 addresses or networks, got %d", len(s.ChatServers))
	}
	if _, err := parseNetworks(s.ChatServers); err != nil {
		p("chat_servers", "%v", err)
	}
}

// clientRoutes are the area's /client_requester.php functions.
func (a *Area) clientRoutes() []server.Route {
	return []server.Route{
		{Func: FuncServerList, Area: areaName, Handler: a.clientHandler(FuncServerList, a.serverList), Fail: a.failRoute, Outcome: outcome,
			Doc: server.Doc{
				Summary: "The game servers a player may create a game on (gametype 90: idle) or join (gametype 10: in a lobby), online within heartbeat_timeout, by region; with a connection key for them.",
				Form:    serverListRequest{}, ReplyValue: serverListReply{Servers: wire.NewArray()},
				Reply: "`server_list` keyed by server id: `server_id`, `ip`, `port`, `location` and `c_state` \"1\" (90) or `class` \"1\" (10); `acc_key` (accepted once by accept_key of a listed server within key_lifetime), `acc_key_hash` (SHA-1 hex of acc_key, cookie, chat_salt), `vested_threshold` 5, `0` true. " +
					"Failure, with the PHP array `error` => sentence: 401 (no live session), 422 (another gametype), 429 (too many lists), 5xx.",
			}},
		{Func: FuncChatClientConnect, Area: areaName, Handler: a.clientHandler(FuncChatClientConnect, a.chatClientConnect), Fail: a.failRoute, Outcome: outcome,
			Doc: server.Doc{
				Summary: "A chat server checks a player's session (only callers in [matches] chat_servers; any other is answered as an unknown function).",
				Form:    chatConnectRequest{}, ReplyValue: chatConnectReply{},
				Reply: "The player's identity for a live session of account_id: `account_id`, `nickname`, `chat_mode_type`, `super_id`, `account_type`, `level`, `games_played`, `wins`, `losses`, `discos` (recorded matches), `buddy_list` (account id => nickname). " +
					"Failure: 401 (no live session of that account), 400, 5xx with the PHP array `error` => sentence; a caller not configured: 404 as an unknown function.",
			}},
	}
}

// clientHandler serves one client_requester function, counting its
// refusals.
func (a *Area) clientHandler(fn string, h serverFunc) server.Handler {
	return func(ctx context.Context, r *wire.Request) server.Response {
		resp, err := h(ctx, r)
		if err != nil {
			a.m.refused(fn, err)
			return a.fail(err)
		}
		return resp
	}
}

type serverListRequest struct {
	Cookie   string `form:"cookie,required" doc:"the player's session cookie"`
	GameType string `form:"gametype,required" doc:"90: servers to create a game on (idle); 10: joinable servers (in a lobby)"`
	Region   string `form:"region" doc:"keep servers whose location starts with it (case-insensitive); empty: every region"`
}

type serverListReply struct {
	Servers *wire.Array `php:"server_list"`
	Key     string      `php:"acc_key"`
	KeyHash string      `php:"acc_key_hash"`
	wire.Extras
}

var (
	errBadGameType = refuse(http.StatusUnprocessableEntity, "bad_gametype", "gametype must be 90 (servers to create a game on) or 10 (joinable servers)")
	errTooManyList = refuse(http.StatusTooManyRequests, "too_many_lists", "too many server lists asked for: try again shortly")
	errPlayer      = refuse(http.StatusUnauthorized, "player_cookie", "the player's cookie is no live session")
)

// ListedServer is a server as a list shows it.
type ListedServer struct {
	ID       uint32
	Address  string
	Port     int32
	Location string
	State    int32
}

// ListServers returns the online game servers in state (stateIdle or
// stateLobby) whose location starts with region, lowest ids first, at most
// max.
func (a *Area) ListServers(state int32, region string, max int, now time.Time) ([]ListedServer, error) {
	var out []ListedServer
	hosts := map[storage.AccountID]bool{}
	db := a.sys.DB()
	err := servers.EachAll(db, func(host storage.AccountID, _ string, s *pb.Server) error {
		if s.Manager || s.ShutDown || len(s.SecretHash) == 0 || s.State != state || s.Port <= 0 || s.Port > 65535 {
			return nil
		}
		if now.Sub(a.lastHeard(s)) > a.set.HeartbeatTimeout.Duration {
			return nil
		}
		if region != "" && (len(s.Location) < len(region) || !strings.EqualFold(s.Location[:len(region)], region)) {
			return nil
		}
		ok, seen := hosts[host]
		if !seen {
			var err error
			if ok, err = IsGameHost(db, host); err != nil {
				return err
			}
			hosts[host] = ok
		}
		if ok {
			out = append(out, ListedServer{ID: s.Id, Address: s.Address, Port: s.Port, Location: s.Location, State: s.State})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

func (a *Area) serverList(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req serverListRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	sess, err := a.login.Authenticate(req.Cookie)
	if err != nil {
		return server.Response{}, errPlayer
	}
	var state int32
	entryKey := "c_state"
	switch strings.TrimSpace(req.GameType) {
	case gameTypeCreate:
		state = stateIdle
	case gameTypeJoin:
		state, entryKey = stateLobby, "class"
	default:
		return server.Response{}, errBadGameType
	}
	c := a.clientState()
	if ok, _ := c.byAccount.Allow(strconv.FormatUint(uint64(sess.AccountID), 10)); !ok {
		return server.Response{}, errTooManyList
	}
	if ok, _ := c.byAddress.Allow(limit.AddrKey(r.RemoteIP)); !ok {
		return server.Response{}, errTooManyList
	}
	now := a.now()
	list, err := a.ListServers(state, clip(strings.TrimSpace(req.Region), 32), a.set.ServerListMax, now)
	if err != nil {
		return server.Response{}, err
	}
	ids := make([]uint32, len(list))
	rep := serverListReply{Servers: wire.NewArray()}
	for i, s := range list {
		ids[i] = s.ID
		rep.Servers.Set(int64(s.ID), wire.NewArray().Set("server_id", strconv.FormatUint(uint64(s.ID), 10)).
			Set("ip", s.Address).Set("port", strconv.Itoa(int(s.Port))).Set("location", s.Location).Set(entryKey, "1"))
	}
	key, err := IssueListKey(ctx, a.sys, sess.AccountID, ids, a.set.KeyLifetime.Duration, now)
	if err != nil {
		return server.Response{}, err
	}
	rep.Key, rep.KeyHash = key, KeyHash(key, req.Cookie, a.set.ChatSalt)
	return server.PHP(a.log, rep), nil
}

// KeyHash is a list's acc_key_hash: the lowercase hex SHA-1 of the key,
// the player's cookie and the chat salt.
func KeyHash(key, cookie, salt string) string {
	sum := sha1.Sum([]byte(key + cookie + salt))
	return hex.EncodeToString(sum[:])
}

// IssueListKey issues the key of a server list that showed the servers
// ids to player, valid for lifetime from now, written through the
// player's actor (it drops the player's expired list keys, and the oldest
// past maxListKeys). With no server it stores nothing: the key is
// accepted nowhere.
func IssueListKey(ctx context.Context, sys *actors.System, player storage.AccountID, ids []uint32, lifetime time.Duration, now time.Time) (string, error) {
	var num [4]byte
	for binary.BigEndian.Uint32(num[:]) == 0 {
		_, _ = rand.Read(num[:])
	}
	t := newToken(player, binary.BigEndian.Uint32(num[:]))
	if len(ids) == 0 {
		return t.String(), nil
	}
	rec := &pb.ListKey{ServerIds: slices.Sorted(slices.Values(ids)), SecretHash: t.hash(), Expires: now.Add(lifetime).Unix(),
		Issued: now.UnixNano()}
	issue := issueListKeyFunc(t, rec, now)
	// Retried: served by a node other than the player's (cluster mode),
	// the write may be fenced by the home's, with nothing written.
	_, err := retried(ctx, func() (struct{}, error) { return actors.Apply(ctx, sys, player, issue) })
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// issueListKeyFunc is IssueListKey's change of the player's account.
func issueListKeyFunc(t token, rec *pb.ListKey, now time.Time) actors.ChangeFunc[struct{}] {
	return func(tx *actors.Tx) (struct{}, error) {
		type live struct {
			key    string
			issued int64
		}
		var keep []live
		var stale []string
		err := listKeys.Each(tx.DB(), tx.ID(), "", func(k string, v *pb.ListKey) error {
			if v.Expires <= now.Unix() {
				stale = append(stale, k)
			} else {
				keep = append(keep, live{k, v.Issued})
			}
			return nil
		})
		if err != nil {
			return struct{}{}, err
		}
		if n := len(keep) - (maxListKeys - 1); n > 0 {
			sort.Slice(keep, func(i, j int) bool { return keep[i].issued < keep[j].issued })
			for _, l := range keep[:n] {
				stale = append(stale, l.key)
			}
		}
		for _, k := range stale {
			listKeys.Delete(tx, k)
		}
		return struct{}{}, listKeys.Put(tx, storage.KeyUint32(t.id), rec)
	}
}

// keyLive reports whether t is a live key for server serverID: a list
// key (key number not 0) that listed the server, or an IssueKey key
// (number 0) issued for it; not expired, its secret matching.
func keyLive(db *storage.DB, t token, serverID uint32, now time.Time) (bool, error) {
	if t.id == 0 {
		return checkKey(db, t.String(), serverID, now), nil
	}
	k, err := listKeys.Get(db, t.owner, storage.KeyUint32(t.id))
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	_, listed := slices.BinarySearch(k.ServerIds, serverID)
	return listed && now.Unix() < k.Expires && t.matches(k.SecretHash), nil
}

// AcceptKey uses up key for server serverID: true (official) when it is
// live for that server (keyLive), deleted in the same commit of its
// player's actor, so that it is accepted once. Anything else answers
// false and changes nothing.
func AcceptKey(ctx context.Context, sys *actors.System, key string, serverID uint32, now time.Time) (bool, error) {
	t, ok := parseToken(key)
	if !ok {
		return false, nil
	}
	// A forged, expired or foreign key costs a read, no write (and no
	// actor of an account it may only name).
	if live, err := keyLive(sys.DB(), t, serverID, now); err != nil || !live {
		return false, err
	}
	return retried(ctx, func() (bool, error) {
		return actors.Apply(ctx, sys, t.owner, func(tx *actors.Tx) (bool, error) {
			live, err := keyLive(tx.DB(), t, serverID, now)
			if err != nil || !live {
				return false, err
			}
			if t.id == 0 {
				keys.Delete(tx, storage.KeyUint32(serverID))
			} else {
				listKeys.Delete(tx, storage.KeyUint32(t.id))
			}
			return true, nil
		})
	})
}
