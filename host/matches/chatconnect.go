package matches

import (
	"context"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// chatclient_connect (client_requester.php): how a chat server checks a
// player's session, the original S2 design (the notes, section 4). The
// chat server posts the account_id, cookie and chat_mode_type the client
// gave it, and gets the player's identity when the cookie is a live
// session of that very account.
//
// Only the chat servers may ask: callers whose address (the request's
// RemoteIP as the host computes it, so server.trust_forwarded_for and
// trusted_proxies apply) lies in [matches] chat_servers, addresses or CIDR
// networks, by default the loopback only (127.0.0.0/8 and ::1). Any other
// caller is answered exactly as a function this server does not serve
// (HTTP 404, the host's "unknown function" array), before the form is
// read: the public learns neither that the function exists nor whether
// a cookie is valid.
//
// A chat server gets the identity for a live session whose account is
// account_id; a cookie that names no session, an expired one (by the
// area's clock as well as the login service's), one ended by logout, and
// a session of another account are refused alike, with HTTP 401 and the
// PHP error array. The reply: account_id, nickname, chat_mode_type (as
// asked, a number 0..255), super_id, account_type, level, the recorded
// matches' games_played, wins, losses, discos (matches.totals), and
// buddy_list (account id => nickname). The notes' perms, rank and clan
// are not stored by this server and are not sent.

type chatConnectRequest struct {
	AccountID string `form:"account_id,required" doc:"the account the player says it is"`
	Cookie    string `form:"cookie,required" doc:"the player's session cookie"`
	ChatMode  string `form:"chat_mode_type" doc:"the chat mode the client asked for (0..255), answered back"`
}

type chatConnectReply struct {
	AccountID    uint32      `php:"account_id"`
	Nickname     string      `php:"nickname"`
	ChatModeType int         `php:"chat_mode_type"`
	SuperID      uint32      `php:"super_id"`
	AccountType  int32       `php:"account_type"`
	Level        int32       `php:"level"`
	GamesPlayed  int64       `php:"games_played"`
	Wins         int64       `php:"wins"`
	Losses       int64       `php:"losses"`
	Discos       int64       `php:"discos"`
	Buddies      *wire.Array `php:"buddy_list"`
	wire.Extras
}

var errChatSession = refuse(http.StatusUnauthorized, "player_cookie", "the cookie is no live session of this account")

// chatCaller reports whether ip (a request's RemoteIP) is a configured
// chat server.
func (a *Area) chatCaller(ip string) bool {
	c := a.clientState()
	if c.allowedErr != nil {
		return false
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	addr = addr.Unmap().WithZone("")
	for _, p := range c.chatAllow {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func (a *Area) chatClientConnect(ctx context.Context, r *wire.Request) (server.Response, error) {
	if !a.chatCaller(r.RemoteIP) {
		a.m.refusedBy.WithLabelValues(FuncChatClientConnect, "not_chat_server").Inc()
		return a.unknownFunction(), nil
	}
	var req chatConnectRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	mode := 0
	if m := strings.TrimSpace(req.ChatMode); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n < 0 || n > 255 {
			return server.Response{}, badRequest(&wire.FieldError{Field: "chat_mode_type", Problem: "must be a number 0..255", Err: wire.ErrBadField})
		}
		mode = n
	}
	id, err := strconv.ParseUint(strings.TrimSpace(req.AccountID), 10, 32)
	if err != nil || id == 0 {
		return server.Response{}, errChatSession
	}
	sess, err := a.login.Authenticate(req.Cookie)
	if err != nil || sess.AccountID != storage.AccountID(id) || !sess.Valid(a.now()) {
		return server.Response{}, errChatSession
	}
	player, err := a.sys.Snapshot(ctx, sess.AccountID)
	if err != nil {
		return server.Response{}, err
	}
	t, err := TotalsOf(a.sys.DB(), sess.AccountID)
	if err != nil {
		return server.Response{}, err
	}
	rep := chatConnectReply{AccountID: uint32(player.ID), Nickname: player.Nickname, ChatModeType: mode, SuperID: uint32(player.SuperID),
		AccountType: player.AccountType, Level: player.Stats.Level, GamesPlayed: t.Matches, Wins: t.Wins, Losses: t.Losses, Discos: t.Discos,
		Buddies: wire.NewArray()}
	for _, b := range player.Buddies {
		rep.Buddies.Set(int64(b.ID), b.Nickname)
	}
	return server.PHP(a.log, rep), nil
}
