package matchsim

import (
	"context"
	"net/url"
	"strconv"

	"github.com/honmaster/masterserver/host/client"
)

// Server states a heartbeat reports (c_state; the notes' NEXUS reading).
const (
	StateSleeping = 0
	StateIdle     = 1
	StateLobby    = 2
	StateInGame   = 3
)

// GameServer is a simulated dedicated game server, started by a manager
// with svr_login "HOST:INSTANCE" and the host's password.
type GameServer struct {
	C        *client.Client
	Host     string
	Instance int
	Password string
	Port     int // its game port (11235 + instance unless set)

	// What start_game sends: the map ("" caldavar), the arranged match
	// type (0 public, 1 matchmaking, 4 MidWars, 7 RiftWars) and the
	// casual flag.
	Map      string
	Arranged int
	Casual   bool

	// What new_session answered.
	Session  string
	ServerID int64
	// MatchID is the match start_game gave (0: none yet).
	MatchID int64

	state     int
	announced bool // the first heartbeat after start_game was sent
}

// NewGameServer returns instance of the host's game servers.
func NewGameServer(c *client.Client, host string, instance int, password string) *GameServer {
	return &GameServer{C: c, Host: host, Instance: instance, Password: password, Port: 11235 + instance}
}

// Login is the server's login, "HOST:INSTANCE".
func (g *GameServer) Login() string { return g.Host + ":" + strconv.Itoa(g.Instance) }

// NewSession logs the server in (new_session). The reply must carry
// session and server_id.
func (g *GameServer) NewSession(ctx context.Context) (*Reply, error) {
	r, err := g.NewSessionWith(ctx, g.Login(), PasswordMD5(g.Password))
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "session", "server_id"); err != nil {
		return r, err
	}
	g.Session, _ = r.Str("session")
	g.ServerID, _ = r.Int("server_id")
	if g.Session == "" {
		return r, refused(r, "new_session answered an empty session")
	}
	g.MatchID, g.state, g.announced = 0, StateIdle, false
	return r, nil
}

// NewSessionWith sends new_session with the login and pass given.
func (g *GameServer) NewSessionWith(ctx context.Context, login, pass string) (*Reply, error) {
	return Call(ctx, g.C, "new_session", PathServer+"?f=new_session", url.Values{
		"login": {login}, "pass": {pass}, "port": {strconv.Itoa(g.Port)},
		"name": {"Sim " + g.Login()}, "desc": {"simulated game server"}, "location": {"EU"}, "ip": {"127.0.0.1"}})
}

// SetOnline sends a heartbeat with the server's state. The first one after
// start_game carries the match (new, match_id, max_players, options), as
// the game server's does. Any 200 answers it (NEXUS sends an empty body).
func (g *GameServer) SetOnline(ctx context.Context, state int) (*Reply, error) {
	form := url.Values{"session": {g.Session}, "num_conn": {"0"}, "cgt": {"0"}, "map": {"caldavar"},
		"private": {"0"}, "vip": {"0"}, "c_state": {strconv.Itoa(state)}, "prev_c_state": {strconv.Itoa(g.state)}}
	if state == StateInGame {
		form.Set("num_conn", "10")
		form.Set("cgt", "60000")
	}
	if g.MatchID != 0 && !g.announced {
		form.Set("new", "1") // public match (arranged type 0, + 1)
		form.Set("match_id", strconv.FormatInt(g.MatchID, 10))
		form.Set("max_players", "10")
		form.Set("league", "0")
		form.Set("mode", "normal")
		form.Set("mname", "sim match")
		for _, o := range []string{"ap", "officl", "nl"} {
			form.Set("option["+o+"]", "")
		}
	}
	r, err := Call(ctx, g.C, "set_online", PathServer+"?f=set_online", form)
	if err != nil {
		return nil, err
	}
	if _, err := ok(r); err != nil {
		return r, err
	}
	g.state = state
	if g.MatchID != 0 {
		g.announced = true
	}
	return r, nil
}

// StartGame starts a match: the reply must carry match_id (not 0) and
// match_date.
func (g *GameServer) StartGame(ctx context.Context) (*Reply, error) {
	mp, casual := g.Map, "0"
	if mp == "" {
		mp = "caldavar"
	}
	if g.Casual {
		casual = "1"
	}
	r, err := Call(ctx, g.C, "start_game", PathServer+"?f=start_game", url.Values{"session": {g.Session},
		"map": {mp}, "version": {"4.10.1.0"}, "mname": {"sim match"}, "mstr": {g.Host + ":"},
		"casual": {casual}, "arrangedmatchtype": {strconv.Itoa(g.Arranged)}, "match_mode": {"normal"}})
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "match_id", "match_date"); err != nil {
		return r, err
	}
	id, good := r.Int("match_id")
	if !good || id <= 0 {
		return r, refused(r, "start_game answered no match id")
	}
	g.MatchID, g.announced = id, false
	return r, nil
}

// Conn is what c_conn answered about a player.
type Conn struct {
	AccountID  int64
	Nickname   string
	GameCookie string
	Reply      *Reply
}

// CConn connects a player to the server by the player's client cookie
// (c_conn). The reply must carry account_id, nickname, account_type,
// game_cookie and my_upgrades (korDen's required keys).
func (g *GameServer) CConn(ctx context.Context, cookie string) (*Conn, error) {
	r, err := Call(ctx, g.C, "c_conn", PathServer+"?f=c_conn", url.Values{"session": {g.Session}, "cookie": {cookie},
		"ip": {"127.0.0.1"}, "cas": {"0"}, "new": {"1"}})
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "account_id", "nickname", "account_type", "game_cookie", "my_upgrades"); err != nil {
		return &Conn{Reply: r}, err
	}
	c := &Conn{Reply: r}
	c.AccountID, _ = r.Int("account_id")
	c.Nickname, _ = r.Str("nickname")
	c.GameCookie, _ = r.Str("game_cookie")
	if c.AccountID <= 0 || c.GameCookie == "" {
		return c, refused(r, "c_conn answered no account id or an empty game_cookie")
	}
	return c, nil
}

// AcceptKey checks a player's connection key; it returns official (0
// unofficial, 1 official with statistics, 2 without).
func (g *GameServer) AcceptKey(ctx context.Context, key string) (int64, *Reply, error) {
	r, err := Call(ctx, g.C, "accept_key", PathServer+"?f=accept_key", url.Values{"session": {g.Session}, "acc_key": {key}})
	if err != nil {
		return 0, nil, err
	}
	if _, err := ok(r, "official"); err != nil {
		return 0, r, err
	}
	off, good := r.Int("official")
	if !good {
		return 0, r, refused(r, "accept_key answered official that is not a number")
	}
	return off, r, nil
}

// Aids2Cookie asks the cookies of the accounts (query aids[<n>], form
// session). The reply is returned as it is once it is a 200.
func (g *GameServer) Aids2Cookie(ctx context.Context, accountIDs ...int64) (*Reply, error) {
	q := url.Values{"f": {"aids2cookie"}}
	for i, id := range accountIDs {
		q.Set("aids["+strconv.Itoa(i)+"]", strconv.FormatInt(id, 10))
	}
	r, err := Call(ctx, g.C, "aids2cookie", PathServer+"?"+q.Encode(), url.Values{"session": {g.Session}})
	if err != nil {
		return nil, err
	}
	return ok(r)
}

// GetUpgrades asks a connected player's upgrades by the player's cookie.
func (g *GameServer) GetUpgrades(ctx context.Context, cookie string) (*Reply, error) {
	r, err := Call(ctx, g.C, "get_upgrades", PathServer+"?f=get_upgrades", url.Values{"session": {g.Session}, "cookie": {cookie}})
	if err != nil {
		return nil, err
	}
	return ok(r, "my_upgrades")
}

// GetQuickstats asks an account's quick statistics.
func (g *GameServer) GetQuickstats(ctx context.Context, accountID int64) (*Reply, error) {
	r, err := Call(ctx, g.C, "get_quickstats", PathServer+"?f=get_quickstats", url.Values{"session": {g.Session},
		"account_id": {strconv.FormatInt(accountID, 10)}, "ranked": {"0"}, "casual": {"0"}})
	if err != nil {
		return nil, err
	}
	return ok(r)
}

// SubmitStats submits the statistics stats (Match.Form, or any form of
// the caller's) as this server (f=submit_stats in the form, with the
// server's session). Success is the four "OK" keys.
func (g *GameServer) SubmitStats(ctx context.Context, stats url.Values) (*Reply, error) {
	return g.SubmitBody(ctx, []byte(url.Values{"f": {"submit_stats"}, "session": {g.Session}}.Encode()+"&"+stats.Encode()))
}

// SubmitBody submits an url-encoded body of the caller's as it is (it
// must name f and the session itself).
func (g *GameServer) SubmitBody(ctx context.Context, body []byte) (*Reply, error) {
	r, err := CallBody(ctx, g.C, "submit_stats", PathStats, body)
	if err != nil {
		return nil, err
	}
	return statsOK(r, 0)
}

// SetReplaySize reports the match's replay size (the function in the
// form). The notes' NEXUS answers replay_size_update "OK"; any 200 is
// taken.
func (g *GameServer) SetReplaySize(ctx context.Context, matchID, size int64) (*Reply, error) {
	r, err := Call(ctx, g.C, "set_replay_size", PathServer, url.Values{"f": {"set_replay_size"}, "session": {g.Session},
		"match_id": {strconv.FormatInt(matchID, 10)}, "file_size": {strconv.FormatInt(size, 10)}})
	if err != nil {
		return nil, err
	}
	return ok(r)
}

// Shutdown tells the master server the server stops.
func (g *GameServer) Shutdown(ctx context.Context) (*Reply, error) {
	r, err := Call(ctx, g.C, "shutdown", PathServer+"?f=shutdown", url.Values{"session": {g.Session}})
	if err != nil {
		return nil, err
	}
	return ok(r)
}
