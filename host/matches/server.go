package matches

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/internal/opmsg"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Paths the area serves.
const (
	PathServerRequester = "/server_requester.php"
	PathStatsRequester  = "/stats_requester.php"
)

// Functions of /server_requester.php (f in the query; in the form for
// get_spectator_header and set_replay_size, as the game sends them).
const (
	FuncReplayAuth         = "replay_auth"
	FuncNewSession         = "new_session"
	FuncSetOnline          = "set_online"
	FuncStartGame          = "start_game"
	FuncConnect            = "c_conn"
	FuncAcceptKey          = "accept_key"
	FuncGetUpgrades        = "get_upgrades"
	FuncAIDs2Cookie        = "aids2cookie"
	FuncGetQuickstats      = "get_quickstats"
	FuncShutdown           = "shutdown"
	FuncSetReplaySize      = "set_replay_size"
	FuncGetSpectatorHeader = "get_spectator_header"
	FuncSubmitStats        = "submit_stats"
	FuncResubmitStats      = "resubmit_stats"
)

// PasswordCheck checks a manager's or game server's password, sent as the
// lowercase hex MD5 of the plaintext, against the account's SRP verifier,
// charging a failure to the login limits; it returns the account.
type PasswordCheck func(ctx context.Context, login, md5Hex, ip string) (storage.AccountID, error)

// Area is the host side of the matches area while the server serves.
type Area struct {
	sys      *actors.System
	login    *login.Service
	plugin   sdk.Caller
	log      *slog.Logger
	set      Settings
	m        *metrics
	password PasswordCheck
	now      func() time.Time
	// publicURL is the server's base URL (server.public_url, or derived).
	publicURL string
	// chatHost is [chat] host, the chat server's (chatAddress).
	chatHost string
	// starts and beats limit start_game and heartbeat writes per game-host
	// account.
	starts, beats *limit.Keyed
	// submits and submitsByAddress bound statistics submissions per
	// game-host account and per address (stats_submit_*).
	submits, submitsByAddress *limit.Keyed
	// nodes is how many cluster nodes share each per-address budget
	// (config.Limits.SharedBy; 0 or 1: this node alone).
	nodes int

	// heard is when each server was last heard from by this node (unix
	// nanoseconds, *atomic.Int64 by server id): heartbeats that change
	// nothing are kept here and written at most every heartbeat_timeout/3.
	heard sync.Map

	// client is the players' and chat servers' side: the server list's
	// limits, the chat servers allowed (serverlist.go, chatconnect.go).
	client clientSide
}

// Refusals, each with its HTTP status (the managers read 401 as bad
// credentials, 403 as no hosting right, 5xx as the master down) and its
// reason in the metrics.
type refusal struct {
	status int
	reason string
	msg    string
}

func (r *refusal) Error() string { return r.msg }

func refuse(status int, reason, format string, args ...any) error {
	return &refusal{status: status, reason: reason, msg: fmt.Sprintf(format, args...)}
}

var (
	errNoSession       = refuse(http.StatusUnauthorized, "session", "unknown or ended server session")
	errNotGameHost     = refuse(http.StatusForbidden, "not_game_host", "this account may not run game servers")
	errBadLogin        = refuse(http.StatusUnauthorized, "credentials", "wrong login or password")
	errTooManyFailures = refuse(http.StatusTooManyRequests, "too_many_failures", "too many failed logins from this address or for this login: try again later")
	errTooManyLogins   = refuse(http.StatusTooManyRequests, "too_many_logins", "too many logins from this address: try again shortly (limits.logins_per_address)")
	errTooManyServers  = refuse(http.StatusForbidden, "too_many_servers", "this account has registered as many game servers as it may (max_servers_per_host)")
	errTooManyWrites   = refuse(http.StatusTooManyRequests, "too_many_writes", "this account's servers register faster than they may: try again shortly")
	errTooManyStarts   = refuse(http.StatusTooManyRequests, "too_many_starts", "this account starts matches faster than it may: try again shortly")
	errTooManySubmits  = refuse(http.StatusTooManyRequests, "too_many_submissions", "statistics come from this account or address faster than they may: keep them and resubmit shortly")
)

// errorReply is the PHP error array every failure of the area answers.
type errorReply struct {
	Error string `php:"error"`
}

// unknownReply is the host's answer to an unknown function or path.
type unknownReply struct {
	Error string `php:"error"`
	wire.Extras
}

// unknownFunction answers an unknown function as the service answers any
// unknown function or path: HTTP 404 with the PHP error array (and its
// two extras) that never echoes the name.
func (a *Area) unknownFunction() server.Response {
	resp := server.PHP(a.log, unknownReply{Error: "unknown function"})
	resp.Status = http.StatusNotFound
	return resp
}

// fail answers err: a refusal with its status and sentence, an unknown
// outcome or a server fault with 503/500 (never a plain refusal: an error
// reply never hides a write).
func (a *Area) fail(err error) server.Response {
	var rf *refusal
	status, msg := http.StatusInternalServerError, "internal error"
	switch {
	case errors.As(err, &rf):
		status, msg = rf.status, rf.msg
	case errors.Is(err, server.ErrBusy):
		status, msg = http.StatusServiceUnavailable, "the server is reading too many large requests; nothing was done, try again later"
	case errors.Is(err, area.ErrBadRequest):
		status, msg = http.StatusBadRequest, "bad request: "+badRequestDetail(err)
	default:
		c := area.CauseOf(err)
		msg = c.Message()
		switch c {
		case area.CauseBadCookie:
			status = http.StatusUnauthorized
		case area.CauseBadRequest:
			status = http.StatusBadRequest
		case area.CauseInternal:
			status = http.StatusInternalServerError
		default: // unknown outcome, busy, plugin down, storage full: try again later
			status = http.StatusServiceUnavailable
		}
		if c.ServerSide() {
			a.log.Warn("request failed", "err", err)
		}
	}
	r := server.PHP(a.log, errorReply{Error: msg})
	r.Status = status
	return r
}

// failRoute is the routes' Fail: what the host could not hand to a
// handler. A body the server refused to read is a bad request; one refused
// before it was read because too many large bodies were being read
// (server.ErrBusy), and a request another node could not serve
// (server.NotServedError: try again, or outcome unknown), are answered by
// their cause, never as malformed.
func (a *Area) failRoute(err error) server.Response {
	var ns *server.NotServedError
	switch {
	case errors.Is(err, server.ErrBusy):
		return a.fail(err)
	case errors.As(err, &ns):
		return a.fail(ns.Err)
	}
	return a.fail(badRequest(err))
}

// badRequestDetail is the field problem of a malformed request, worded
// without package names.
func badRequestDetail(err error) string {
	var fe *wire.FieldError
	switch {
	case errors.As(err, &fe):
		return fe.Field + ": " + fe.Problem
	case errors.Is(err, wire.ErrBodyTooLarge):
		return "the request body is larger than this server accepts"
	case errors.Is(err, wire.ErrMalformed):
		// "more than N fields", a broken escape: the reader's sentence,
		// without package names.
		msg := opmsg.Strip(err.Error())
		if i := strings.LastIndex(msg, "malformed request: "); i >= 0 {
			msg = msg[i+len("malformed request: "):]
		}
		return "the request does not parse: " + msg
	}
	return "the request does not parse"
}

func badRequest(err error) error { return fmt.Errorf("%w: %w", area.ErrBadRequest, err) }

// serverRequester dispatches /server_requester.php by its function.
func (a *Area) serverRequester(ctx context.Context, r *wire.Request) server.Response {
	fn := r.Query.Get("f")
	if fn == "" {
		fn = r.Form.Get("f")
	}
	h, ok := a.serverFuncs()[fn]
	if !ok {
		return a.unknownFunction()
	}
	resp, err := h(ctx, r)
	if err != nil {
		a.m.refused(fn, err)
		return a.fail(err)
	}
	return resp
}

type serverFunc func(ctx context.Context, r *wire.Request) (server.Response, error)

func (a *Area) serverFuncs() map[string]serverFunc {
	return map[string]serverFunc{
		FuncReplayAuth: a.replayAuth, FuncNewSession: a.newSession, FuncSetOnline: a.setOnline,
		FuncStartGame: a.startGame, FuncConnect: a.connect, FuncAcceptKey: a.acceptKey,
		FuncGetUpgrades: a.getUpgrades, FuncAIDs2Cookie: a.aids2cookie, FuncGetQuickstats: a.getQuickstats,
		FuncShutdown: a.shutdown, FuncSetReplaySize: a.setReplaySize, FuncGetSpectatorHeader: a.spectatorHeader,
	}
}

// splitLogin reads "NAME:INSTANCE" (manager: "NAME:", instance "").
func splitLogin(s string, manager bool) (name, instance string, err error) {
	name, instance, ok := strings.Cut(s, ":")
	switch {
	case !ok || name == "":
		return "", "", refuse(http.StatusUnauthorized, "credentials", "login must be NAME:%s", map[bool]string{true: "", false: "INSTANCE"}[manager])
	case manager && instance != "":
		return "", "", refuse(http.StatusUnauthorized, "credentials", "a manager's login is NAME: (with nothing after the colon)")
	case !manager && instance == "":
		return "", "", refuse(http.StatusUnauthorized, "credentials", "a game server's login is NAME:INSTANCE")
	case len(instance) > 32 || !utf8.ValidString(instance) || strings.ContainsAny(instance, ":\x00"):
		return "", "", refuse(http.StatusBadRequest, "bad_request", "the instance must be at most 32 characters of text")
	}
	return name, instance, nil
}

// authHost checks a login's password and that the account is a game host.
func (a *Area) authHost(ctx context.Context, name, pass, ip string) (storage.AccountID, error) {
	if len(name) > login.MaxLoginLength {
		return 0, errBadLogin
	}
	id, err := a.password(ctx, name, pass, ip)
	var le *login.Error
	if errors.As(err, &le) {
		switch le.Reason {
		case login.ReasonTooManyFailures:
			return 0, errTooManyFailures
		case login.ReasonTooManyLogins:
			return 0, errTooManyLogins
		case login.ReasonWrongPassword, login.ReasonUnknownAccount, login.ReasonMalformed, login.ReasonLoginTooLong:
			return 0, errBadLogin
		}
	}
	if err != nil {
		return 0, err
	}
	switch ok, err := IsGameHost(a.sys.DB(), id); {
	case err != nil:
		return 0, err
	case !ok:
		return 0, errNotGameHost
	}
	return id, nil
}

// register opens a session for the host's manager (instance "") or game
// server instance: the server keeps its id (taken from the sequence on its
// first session), and a new secret replaces the old one.
func (a *Area) register(ctx context.Context, host storage.AccountID, instance string, info *pb.Server) (*pb.Server, token, error) {
	if ok, _ := a.beats.Allow(strconv.FormatUint(uint64(host), 10)); !ok {
		return nil, token{}, errTooManyWrites
	}
	id, err := a.serverIDOf(host, instance)
	if err != nil {
		return nil, token{}, err
	}
	if id == 0 && instance != "" { // (a host has one manager)
		// Refused here without taking an id; checked again below, in the
		// host's actor, against registrations that came at once.
		if err := a.roomForServer(a.sys.DB(), host, true); err != nil {
			return nil, token{}, err
		}
	}
	if id == 0 {
		if id, err = nextID(ctx, a.sys, "server"); err != nil {
			return nil, token{}, err
		}
	}
	now := a.now()
	type registered struct {
		s *pb.Server
		t token
	}
	out, err := applyHost(ctx, a.sys, host, func(tx *actors.Tx) (registered, error) {
		// Another session of the same instance may have registered it
		// meanwhile: keep its id.
		if cur, err := a.serverIDOf(host, instance); err != nil {
			return registered{}, err
		} else if cur != 0 {
			id = cur
		}
		s, err := servers.Get(tx.DB(), host, storage.KeyUint32(id))
		isNew := errors.Is(err, storage.ErrNotFound)
		if isNew {
			s, err = &pb.Server{Id: id, Instance: instance, Manager: instance == ""}, nil
		}
		if err != nil {
			return registered{}, err
		}
		if instance != "" && (isNew || s.ShutDown) {
			// A new instance, or one shut down coming back: the host's
			// actor registers one server at a time, so the count is
			// exact here.
			if err := a.roomForServer(tx.DB(), host, isNew); err != nil {
				return registered{}, err
			}
		}
		t := newToken(host, id)
		s.Name, s.Description, s.Location, s.Address, s.Port = info.Name, info.Description, info.Location, info.Address, info.Port
		s.Heard, s.SessionStarted, s.ShutDown, s.State, s.SecretHash = now.Unix(), now.Unix(), false, 0, t.hash()
		return registered{s, t}, servers.Put(tx, storage.KeyUint32(id), s)
	})
	if err != nil {
		return nil, token{}, err
	}
	rec, t := out.s, out.t
	a.touch(rec.Id, now)
	return rec, t, nil
}

// roomForServer is nil while the host has fewer game server instances
// not shut down (its manager aside) than max_servers_per_host and, for a
// new instance (isNew), fewer records of instances in all than
// maxServerRecords times that; else errTooManyServers.
func (a *Area) roomForServer(db *storage.DB, host storage.AccountID, isNew bool) error {
	live, all := 0, 0
	if err := servers.Each(db, host, "", func(_ string, s *pb.Server) error {
		// A server shut down holds no place among the live ones: a host
		// that replaces or renames its instances is not locked out by the
		// ones it retired. Their records stay (their matches name them),
		// so the records a host may have in all are bounded too.
		if !s.Manager {
			all++
			if !s.ShutDown {
				live++
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if live >= a.set.MaxServers || (isNew && all >= maxServerRecords*a.set.MaxServers) {
		return errTooManyServers
	}
	return nil
}

// maxServerRecords bounds a host's server records, shut down ones
// included, to this many times max_servers_per_host.
const maxServerRecords = 2

// serverIDOf finds the id of the host's instance (0: none yet).
func (a *Area) serverIDOf(host storage.AccountID, instance string) (uint32, error) {
	var id uint32
	err := servers.Each(a.sys.DB(), host, "", func(_ string, s *pb.Server) error {
		if s.Instance == instance && s.Manager == (instance == "") {
			id = s.Id
		}
		return nil
	})
	return id, err
}

func (a *Area) touch(id uint32, at time.Time) {
	v, _ := a.heard.LoadOrStore(id, new(atomic.Int64))
	v.(*atomic.Int64).Store(at.UnixNano())
}

// lastHeard is when server s was last heard from, by this node or as
// written.
func (a *Area) lastHeard(s *pb.Server) time.Time {
	t := time.Unix(s.Heard, 0)
	if v, ok := a.heard.Load(s.Id); ok {
		if m := time.Unix(0, v.(*atomic.Int64).Load()); m.After(t) {
			t = m
		}
	}
	return t
}

// session resolves a server session: the host, its server record. manager
// says which kind the function expects; the other kind is refused, as is
// a player's cookie (never a server session: it is no token).
func (a *Area) session(r *wire.Request, manager bool) (storage.AccountID, *pb.Server, error) {
	t, ok := parseToken(r.Form.Get("session"))
	if !ok || t.id == 0 {
		return 0, nil, errNoSession
	}
	s, err := servers.Get(a.sys.DB(), t.owner, storage.KeyUint32(t.id))
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil, errNoSession
	} else if err != nil {
		return 0, nil, err
	}
	if s.Manager != manager || s.ShutDown || !t.matches(s.SecretHash) {
		return 0, nil, errNoSession
	}
	switch ok, err := IsGameHost(a.sys.DB(), t.owner); {
	case err != nil:
		return 0, nil, err
	case !ok:
		return 0, nil, errNotGameHost
	}
	return t.owner, s, nil
}

// chatAddress is the chat server told to managers and game servers:
// chat_address, else [chat] host, the chat server the clients are sent to
// (it was "localhost", which a manager on another machine looked for on
// itself).
func (a *Area) chatAddress() string {
	switch {
	case a.set.ChatAddress != "":
		return a.set.ChatAddress
	case a.chatHost != "":
		return a.chatHost
	}
	return "localhost"
}

type replayAuthRequest struct {
	Login string `form:"login,required" doc:"the game-host account's login with a trailing colon, NAME:"`
	Pass  string `form:"pass,required" doc:"lowercase hex MD5 of the password"`
}

type replayAuthReply struct {
	ServerID        uint32 `php:"server_id"`
	Official        int    `php:"official"`
	Session         string `php:"session"`
	ChatAddress     string `php:"chat_address"`
	ChatPort        int    `php:"chat_port"`
	CDNUploadHost   string `php:"cdn_upload_host"`
	CDNUploadTarget string `php:"cdn_upload_target"`
}

func (a *Area) replayAuth(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req replayAuthRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	name, _, err := splitLogin(req.Login, true)
	if err != nil {
		return server.Response{}, err
	}
	host, err := a.authHost(ctx, name, req.Pass, r.RemoteIP)
	if err != nil {
		return server.Response{}, err
	}
	rec, t, err := a.register(ctx, host, "", &pb.Server{Address: r.RemoteIP})
	if err != nil {
		return server.Response{}, err
	}
	return server.PHP(a.log, replayAuthReply{ServerID: rec.Id, Official: 1, Session: t.String(),
		ChatAddress: a.chatAddress(), ChatPort: a.set.ChatManagerPort, CDNUploadHost: a.chatAddress(), CDNUploadTarget: "upload"}), nil
}

type newSessionRequest struct {
	Login    string `form:"login,required" doc:"NAME:INSTANCE, the game-host account's login and the server's instance"`
	Pass     string `form:"pass,required" doc:"lowercase hex MD5 of the password"`
	Port     int32  `form:"port" doc:"the server's game port"`
	Name     string `form:"name" doc:"the server's name"`
	Desc     string `form:"desc" doc:"its description"`
	Location string `form:"location" doc:"its region"`
	IP       string `form:"ip" doc:"its address as it reports it"`
}

type newSessionReply struct {
	Session         string  `php:"session"`
	ServerID        uint32  `php:"server_id"`
	ChatAddress     string  `php:"chat_address"`
	ChatPort        int     `php:"chat_port"`
	LeaverThreshold float64 `php:"leaverthreshold"`
}

// clip keeps at most n bytes of valid UTF-8 of a server's self-description.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

func (a *Area) newSession(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req newSessionRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	name, instance, err := splitLogin(req.Login, false)
	if err != nil {
		return server.Response{}, err
	}
	host, err := a.authHost(ctx, name, req.Pass, r.RemoteIP)
	if err != nil {
		return server.Response{}, err
	}
	addr := r.RemoteIP
	if req.IP != "" {
		addr = clip(req.IP, 64)
	}
	rec, t, err := a.register(ctx, host, instance, &pb.Server{Name: clip(req.Name, 64), Description: clip(req.Desc, 256),
		Location: clip(req.Location, 32), Address: addr, Port: req.Port})
	if err != nil {
		return server.Response{}, err
	}
	return server.PHP(a.log, newSessionReply{Session: t.String(), ServerID: rec.Id, ChatAddress: a.chatAddress(),
		ChatPort: a.set.ChatServerPort, LeaverThreshold: a.set.LeaverThreshold}), nil
}

type setOnlineRequest struct {
	Session string `form:"session,required" doc:"the game server's session (new_session)"`
	State   string `form:"c_state" doc:"0 sleeping, 1 idle, 2 lobby, 3 in game"`
	NumConn string `form:"num_conn" doc:"players connected"`
	Map     string `form:"map" doc:"the map loaded"`
}

// emptyOK is the empty 200 reply of set_online and shutdown.
func emptyOK() server.Response { return server.Text("text/plain; charset=UTF-8", "") }

func (a *Area) setOnline(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req setOnlineRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	host, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	now := a.now()
	// Read as lenient does: anything but a whole number 0..MaxInt32 is 0
	// (Atoi's int, cut to int32, read 4294967298 as 2 and kept a negative
	// count of players).
	state, players := lenient(req.State), lenient(req.NumConn)
	if !stateGiven(req.State) {
		// No state, or one that is not a state: the server's stays (a
		// lobby read as asleep left the join list and the match).
		state = s.State
	}
	mp := clip(req.Map, 64)
	a.touch(s.Id, now)
	// A heartbeat that moves the server's match on is written at once,
	// past the rate (at most two per start_game, which has its own).
	match, live := matchAfter(s, state, stateGiven(req.State))
	turn := match != s.CurrentMatch || live != s.MatchLive
	if !turn && state == s.State && players == s.Players && mp == s.Map &&
		now.Sub(time.Unix(s.Heard, 0)) < a.set.HeartbeatTimeout.Duration/3 {
		return emptyOK(), nil // nothing to write: kept in memory
	}
	if ok, _ := a.beats.Allow(strconv.FormatUint(uint64(host), 10)); !ok && !turn {
		return emptyOK(), nil // past the rate: kept in memory, written with a later heartbeat
	}
	t, _ := parseToken(req.Session)
	_, err = applyHost(ctx, a.sys, host, func(tx *actors.Tx) (struct{}, error) {
		cur, err := servers.Get(tx.DB(), host, storage.KeyUint32(s.Id))
		if err != nil {
			return struct{}{}, err
		}
		if cur.ShutDown || !t.matches(cur.SecretHash) {
			return struct{}{}, errNoSession // replaced or shut down meanwhile
		}
		cur.State, cur.Players, cur.Map, cur.Heard = state, players, mp, now.Unix()
		cur.CurrentMatch, cur.MatchLive = matchAfter(cur, state, stateGiven(req.State))
		return struct{}{}, servers.Put(tx, storage.KeyUint32(s.Id), cur)
	})
	if err != nil {
		return server.Response{}, err
	}
	return emptyOK(), nil
}

// stateGiven reports whether a heartbeat's c_state is a whole number 0..3
// as servers send it.
func stateGiven(s string) bool { return len(s) == 1 && s[0] >= '0' && s[0] <= '3' }

// Server states (c_state) of heartbeats besides those the lists show.
const (
	stateAsleep = 0
	stateInGame = 3
)

// matchAfter is server s's current match, and whether it is under way,
// after a heartbeat reporting state. A heartbeat since start_game that
// reports a lobby or a game marks the match under way; one that then
// reports the server idle or asleep ends it: the server has gone back to
// idle after the match ("heartbeats return to idle"), so players who
// connect from then on wait for its next start_game, whether or not the
// match was recorded (it stays on record, and may still be submitted or
// resubmitted). A heartbeat reporting idle before any reported the match
// under way leaves it (it may have been sent before start_game).
//
// Only a well-formed c_state moves the match (given false: the heartbeat
// had none, or one that is not a whole number, which reads as 0, asleep,
// and must not end a live match).
func matchAfter(s *pb.Server, state int32, given bool) (match uint32, live bool) {
	switch {
	case s.CurrentMatch == 0:
		return 0, false
	case !given:
		return s.CurrentMatch, s.MatchLive
	case !s.MatchLive && (state == stateLobby || state == stateInGame):
		return s.CurrentMatch, true
	case s.MatchLive && (state == stateIdle || state == stateAsleep):
		return 0, false
	}
	return s.CurrentMatch, s.MatchLive
}

type startGameRequest struct {
	Session string `form:"session,required" doc:"the game server's session"`
	Map     string `form:"map" doc:"the map"`
	Version string `form:"version" doc:"the game's version"`
	MName   string `form:"mname" doc:"the match's name"`
	Mode    string `form:"match_mode" doc:"the match mode"`
	// Arranged and Casual put the match in its statistics bucket.
	Arranged string `form:"arrangedmatchtype" doc:"the arranged match type (0 public, 1 matchmaking, 4 MidWars, 7 RiftWars, ...)"`
	Casual   string `form:"casual" doc:"1: a casual match"`
}

type startGameReply struct {
	MatchID             uint32 `php:"match_id"`
	MatchDate           string `php:"match_date"`
	IsRecommended       bool   `php:"is_recommended"`
	SoccerHeroList      string `php:"soccer_hero_list"`
	FreeHeroList        string `php:"free_hero_list"`
	EarlyAccessHeroList string `php:"early_access_hero_list"`
	DisabledHeroList    string `php:"disabled_hero_list"`
}

func (a *Area) startGame(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req startGameRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	host, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	if ok, _ := a.starts.Allow(strconv.FormatUint(uint64(host), 10)); !ok {
		return server.Response{}, errTooManyStarts
	}
	id, err := nextID(ctx, a.sys, "match")
	if err != nil {
		return server.Response{}, err
	}
	now := a.now()
	mode := lenient(req.Mode)
	arranged, _ := strconv.ParseInt(strings.TrimSpace(req.Arranged), 10, 32)
	t, _ := parseToken(req.Session)
	_, err = applyHost(ctx, a.sys, host, func(tx *actors.Tx) (struct{}, error) {
		cur, err := servers.Get(tx.DB(), host, storage.KeyUint32(s.Id))
		if err != nil {
			return struct{}{}, err
		}
		if cur.ShutDown || !t.matches(cur.SecretHash) {
			return struct{}{}, errNoSession
		}
		m := &pb.Match{Id: id, ServerId: s.Id, Started: now.Unix(), Map: clip(req.Map, 64), Name: clip(req.MName, 128),
			Version: clip(req.Version, 32), Mode: mode, Participants: cur.Pending, Arranged: int32(arranged),
			Casual: strings.TrimSpace(req.Casual) == "1"}
		cur.Pending = nil
		if err := matchRecs.Put(tx, storage.KeyUint32(id), m); err != nil {
			return struct{}{}, err
		}
		if err := matchIndex.Put(tx, storage.KeyUint32(id), wrapperspb.UInt32(uint32(s.Id))); err != nil {
			return struct{}{}, err
		}
		cur.CurrentMatch, cur.MatchLive, cur.Heard = id, false, now.Unix()
		return struct{}{}, servers.Put(tx, storage.KeyUint32(s.Id), cur)
	})
	if err != nil {
		return server.Response{}, err
	}
	a.touch(s.Id, now)
	a.m.started.Inc()
	return server.PHP(a.log, startGameReply{MatchID: id, MatchDate: now.UTC().Format("2006-01-02 15:04:05")}), nil
}

type connectRequest struct {
	Session string `form:"session,required" doc:"the game server's session"`
	Cookie  string `form:"cookie,required" doc:"the player's session cookie"`
	IP      string `form:"ip" doc:"the player's address"`
}

type connectReply struct {
	Cookie           string   `php:"cookie"`
	AccountID        uint32   `php:"account_id"`
	Nickname         string   `php:"nickname"`
	SuperID          uint32   `php:"super_id"`
	AccountType      int32    `php:"account_type"`
	Level            int32    `php:"level"`
	Infos            string   `php:"infos"`
	GameCookie       string   `php:"game_cookie"`
	MyUpgrades       []string `php:"my_upgrades"`
	SelectedUpgrades []string `php:"selected_upgrades"`
}

// gameCookie is a fresh per-match token for a player: 32 hex characters,
// random, unrelated to the player's session cookie.
func gameCookie() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var errFull = refuse(http.StatusConflict, "match_full", "the match has as many players as it may record")

func (a *Area) connect(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req connectRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	host, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	sess, err := a.login.Authenticate(req.Cookie)
	if err != nil {
		return server.Response{}, refuse(http.StatusUnauthorized, "player_cookie", "the player's cookie is no live session")
	}
	player, err := a.sys.Snapshot(ctx, sess.AccountID)
	if err != nil {
		return server.Response{}, err
	}
	t, _ := parseToken(r.Form.Get("session"))
	gc, err := applyHost(ctx, a.sys, host, func(tx *actors.Tx) (string, error) {
		cur, err := servers.Get(tx.DB(), host, storage.KeyUint32(s.Id))
		if err != nil {
			return "", err
		}
		if cur.ShutDown || !t.matches(cur.SecretHash) {
			return "", errNoSession
		}
		m, err := openMatch(tx.DB(), host, cur)
		if err != nil {
			return "", err
		}
		// The open match's participants, or, while the server has none (a
		// lobby before start_game), its pending players, who become the
		// participants of the match it starts next.
		list := &cur.Pending
		if m != nil {
			list = &m.Participants
		}
		for _, p := range *list {
			if p.AccountId == uint32(sess.AccountID) {
				return p.GameCookie, nil // reconnected: the same token
			}
		}
		if len(*list) >= a.set.MaxParticipants {
			return "", errFull
		}
		c := gameCookie()
		*list = append(*list, &pb.Participant{AccountId: uint32(sess.AccountID), GameCookie: c, Nickname: player.Nickname})
		if m != nil {
			return c, matchRecs.Put(tx, storage.KeyUint32(m.Id), m)
		}
		return c, servers.Put(tx, storage.KeyUint32(cur.Id), cur)
	})
	if err != nil {
		return server.Response{}, err
	}
	rep := connectReply{Cookie: req.Cookie, AccountID: uint32(player.ID), Nickname: player.Nickname, SuperID: uint32(player.SuperID),
		AccountType: player.AccountType, Level: player.Stats.Level, GameCookie: gc}
	rep.MyUpgrades, rep.SelectedUpgrades = upgradesOf(player)
	return server.PHP(a.log, rep), nil
}

// openMatch is server s's current match while it is not recorded, else
// nil.
func openMatch(db *storage.DB, host storage.AccountID, s *pb.Server) (*pb.Match, error) {
	if s.CurrentMatch == 0 {
		return nil, nil
	}
	m, err := matchRecs.Get(db, host, storage.KeyUint32(s.CurrentMatch))
	if err != nil || m.Recorded {
		return nil, err
	}
	return m, nil
}

func upgradesOf(a *storage.Account) (mine, selected []string) {
	mine = make([]string, 0, len(a.Upgrades))
	for _, u := range a.Upgrades {
		mine = append(mine, u.ID)
	}
	return mine, append([]string{}, a.SelectedUpgrades...)
}

type acceptKeyRequest struct {
	Session string `form:"session,required" doc:"the game server's session"`
	Key     string `form:"acc_key" doc:"the key the player got from the server list"`
}

type acceptKeyReply struct {
	ServerID uint32 `php:"server_id"`
	Official int    `php:"official"`
}

func (a *Area) acceptKey(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req acceptKeyRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	_, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	official := 0
	// A key is accepted once (serverlist.go).
	if ok, err := AcceptKey(ctx, a.sys, req.Key, s.Id, a.now()); err != nil {
		return server.Response{}, err
	} else if ok {
		official = 1
	}
	return server.PHP(a.log, acceptKeyReply{ServerID: s.Id, Official: official}), nil
}

type getUpgradesRequest struct {
	Cookie string `form:"cookie,required" doc:"the player's session cookie"`
}

type upgradesReply struct {
	MyUpgrades       []string `php:"my_upgrades"`
	SelectedUpgrades []string `php:"selected_upgrades"`
}

func (a *Area) getUpgrades(ctx context.Context, r *wire.Request) (server.Response, error) {
	var req getUpgradesRequest
	if err := r.Decode(&req); err != nil {
		return server.Response{}, badRequest(err)
	}
	sess, err := a.login.Authenticate(req.Cookie)
	if err != nil {
		return server.Response{}, refuse(http.StatusUnauthorized, "player_cookie", "the player's cookie is no live session")
	}
	player, err := a.sys.Snapshot(ctx, sess.AccountID)
	if err != nil {
		return server.Response{}, err
	}
	var rep upgradesReply
	rep.MyUpgrades, rep.SelectedUpgrades = upgradesOf(player)
	return server.PHP(a.log, rep), nil
}

type aids2cookieReply struct {
	Cookies  *wire.Array `php:"aids2cookie"`
	GCookies *wire.Array `php:"aids2gcookie"`
}

// aids2cookie answers the per-match game cookies of the asked accounts
// that are participants of the server's current match; never a player's
// session cookie, and nothing for anyone else.
func (a *Area) aids2cookie(_ context.Context, r *wire.Request) (server.Response, error) {
	host, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	rep := aids2cookieReply{Cookies: wire.NewArray(), GCookies: wire.NewArray()}
	m, err := openMatch(a.sys.DB(), host, s)
	if err != nil {
		return server.Response{}, err
	}
	players := s.Pending
	if m != nil {
		players = m.Participants
	}
	asked := map[uint32]bool{}
	for _, vals := range []wire.Values{r.Query, r.Form} {
		for k, vs := range vals {
			if !strings.HasPrefix(k, "aids[") {
				continue
			}
			for _, v := range vs {
				if n, err := strconv.ParseUint(v, 10, 32); err == nil {
					asked[uint32(n)] = true
				}
			}
		}
	}
	for _, p := range players {
		if asked[p.AccountId] {
			rep.Cookies.Set(int64(p.AccountId), p.GameCookie)
			rep.GCookies.Set(int64(p.AccountId), p.GameCookie)
		}
	}
	return server.PHP(a.log, rep), nil
}

type quickstatsReply struct {
	Quickstats string `php:"quickstats"`
}

func (a *Area) getQuickstats(_ context.Context, r *wire.Request) (server.Response, error) {
	if _, _, err := a.session(r, false); err != nil {
		return server.Response{}, err
	}
	return server.PHP(a.log, quickstatsReply{Quickstats: "OK"}), nil
}

// shutdown ends the server's session: it is offline at once.
func (a *Area) shutdown(ctx context.Context, r *wire.Request) (server.Response, error) {
	host, s, err := a.session(r, false)
	if err != nil {
		return server.Response{}, err
	}
	t, _ := parseToken(r.Form.Get("session"))
	_, err = applyHost(ctx, a.sys, host, func(tx *actors.Tx) (struct{}, error) {
		cur, err := servers.Get(tx.DB(), host, storage.KeyUint32(s.Id))
		if err != nil {
			return struct{}{}, err
		}
		if !t.matches(cur.SecretHash) {
			return struct{}{}, errNoSession
		}
		cur.ShutDown, cur.SecretHash, cur.Heard = true, nil, a.now().Unix()
		// Its lobby and its open match end with it: players who connect
		// after it registers again wait for its next start_game (the
		// match stays on record, and may still be submitted).
		cur.Pending, cur.CurrentMatch, cur.MatchLive = nil, 0, false
		return struct{}{}, servers.Put(tx, storage.KeyUint32(s.Id), cur)
	})
	if err != nil {
		return server.Response{}, err
	}
	a.heard.Delete(s.Id)
	return emptyOK(), nil
}

type replaySizeReply struct {
	Update string `php:"replay_size_update"`
}

// setReplaySize acknowledges a replay's size; replays are not stored.
func (a *Area) setReplaySize(_ context.Context, r *wire.Request) (server.Response, error) {
	if _, _, err := a.session(r, false); err != nil {
		return server.Response{}, err
	}
	return server.PHP(a.log, replaySizeReply{Update: "OK"}), nil
}

// spectatorHeader answers where a manager uploads a replay, as JSON (the
// notes' reading): this server stores no replays, and says so in the
// area's doc. It asks for no session: HoNfigurator-Central, the one
// manager known to call it, posts f alone (and read the 401 it got as a
// wrong password), and the answer is the server's public URL and a
// constant.
func (a *Area) spectatorHeader(context.Context, *wire.Request) (server.Response, error) {
	body, err := json.Marshal(map[string]any{"target_url": strings.TrimRight(a.publicURL, "/") + "/replays/upload",
		"s3_header": map[string]string{"Content-Type": "application/zip"}})
	if err != nil {
		return server.Response{}, err
	}
	return server.Response{ContentType: "application/json", Body: body}, nil
}
