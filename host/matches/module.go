package matches

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/limit"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	_ "github.com/honmaster/masterserver/host/matches/matchsim" // the load tester's "match" operation
	"github.com/honmaster/masterserver/host/server"
	bundled "github.com/honmaster/masterserver/plugins/matches"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// areaName is the area's name, the contract's.
var areaName = string(matchesapi.Area)

// The area registers itself with the host (host/area): its bundled
// plugin, its two paths (/server_requester.php, /stats_requester.php),
// its metrics (honmaster_matches_*), its console pages (servers online,
// recent matches), its operator API routes (/api/matches/...) and its
// operator commands ("honmaster servers list", "matches list",
// "matches show ID", "matches resubmission-key --match ID"). Its settings
// are the [matches] table (Settings).
func init() {
	// The game-host role: "account create --game-host", "account role
	// --game-host | --no-game-host", "account show".
	accounts.RegisterRole(accounts.Role{Flag: "game-host", Noun: "game host", Doc: "may run a server manager and game servers",
		Has: IsGameHost, Set: SetGameHost})
	area.Register(area.Module{Area: matchesapi.Area, Bundled: bundled.Plugin, Start: start, LiveSettings: liveSettings,
		Commands: []area.Command{
			{Name: "servers list", Usage: "(game servers and managers: host, instance, address, state, last heartbeat, current match)",
				Flags: func(*flag.FlagSet) area.CommandRequest { return &serversRequest{} }},
			{Name: "matches list", Usage: "[--limit N] (the most recent matches first)",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &listRequest{}
					fs.IntVar(&r.Limit, "limit", 50, "most matches shown (1..10000)")
					return r
				}},
			{Name: "matches show", Usage: "ID", Flags: func(*flag.FlagSet) area.CommandRequest { return &showRequest{} }},
			{Name: "matches resubmission-key", Usage: "--match ID (the key a saved stats file is resubmitted with)",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &keyRequest{}
					fs.Uint64Var(&r.Match, "match", 0, "the match id")
					return r
				}},
		}})
}

// Deps are what New builds the area from.
type Deps struct {
	Env      area.Env
	Password PasswordCheck // nil: the login service's (CheckServerPassword)
	Now      func() time.Time
}

// New builds the area.
func New(d Deps) (*Area, error) {
	m, err := newMetrics(d.Env.Metrics)
	if err != nil {
		return nil, err
	}
	a := &Area{sys: d.Env.Sys, login: d.Env.Login, plugin: d.Env.Plugin, log: d.Env.Log.With("area", areaName),
		set: SettingsOf(d.Env.Config), m: m, password: d.Password, now: d.Now, publicURL: d.Env.Config.PublicURL(),
		chatHost: d.Env.Config.Chat.Host}
	if a.now == nil {
		a.now = clockNow // the wall clock unless a test set one (clock.go)
	}
	a.starts = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.beats = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.submits = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.submitsByAddress = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.client.byAccount = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.client.byAddress = limit.NewAdjustable(limit.Rate{}, 0, a.now)
	a.nodes = d.Env.Config.Limits.SharedBy
	a.SetRates(a.set)
	if a.password == nil {
		a.password = d.Env.Login.CheckServerPassword
	}
	return a, nil
}

func start(e area.Env) (*area.Live, error) {
	a, err := New(Deps{Env: e})
	if err != nil {
		return nil, err
	}
	current.Store(a)
	return &area.Live{Routes: a.Routes(), Pages: a.pages(), Value: a, AccountPanels: []consolepage.AccountPanel{a.accountPanel()},
		Reload: func(c *config.Config) { a.SetRates(SettingsOf(c)) },
		API: map[string]area.APIHandler{
			"POST /api/matches/game-host": a.apiGameHost,
			"GET /api/matches/totals":     a.apiTotals,
			"GET /api/matches/match":      a.apiMatch,
		},
		APIFields: map[string]area.APIFields{
			"POST /api/matches/game-host": {Names: []string{"login", "game_host"}, JSON: true},
			"GET /api/matches/totals":     {Names: []string{"account_id"}},
			"GET /api/matches/match":      {Names: []string{"id"}},
		}}, nil
}

// liveSettings are the [matches] settings a configuration reload puts in
// force at once (SetRates); the others wait for a restart.
var liveSettings = []string{"matches.start_game_burst", "matches.start_game_every", "matches.heartbeat_write_burst",
	"matches.heartbeat_write_every", "matches.stats_submit_burst", "matches.stats_submit_every",
	"matches.server_list_burst", "matches.server_list_every"}

// SetRates puts s's rates in force (a configuration reload: the area's
// liveSettings): what a game host, player or address spent stays spent,
// capped at a lowered burst; a raised one relieves them at once
// (limit.Keyed.SetRate). Every other setting of s is ignored. The
// per-address budgets are cut to this node's share in a cluster
// (config.Limits.SharedBy at start): a balancer spreads an address's
// players and hosts over every node; a host's or a player's own budget is
// whole, its requests all served by its home node (hostOf, the session's
// account).
func (a *Area) SetRates(s Settings) {
	a.starts.SetRate(limit.Rate{Burst: s.StartBurst, Every: s.StartEvery.Duration})
	a.beats.SetRate(limit.Rate{Burst: s.HeartbeatBurst, Every: s.HeartbeatEvery.Duration})
	a.submits.SetRate(limit.Rate{Burst: s.SubmitBurst, Every: s.SubmitEvery.Duration})
	a.submitsByAddress.SetRate(limit.Rate{Burst: 10 * s.SubmitBurst, Every: s.SubmitEvery.Duration / 10}.Share(a.nodes))
	list := limit.Rate{Burst: s.ServerListBurst, Every: s.ServerListEvery.Duration}
	a.client.byAccount.SetRate(list)
	a.client.byAddress.SetRate(limit.Rate{Burst: 10 * list.Burst, Every: list.Every / 10}.Share(a.nodes))
}

// Routes are the area's two paths and its client_requester functions.
func (a *Area) Routes() []server.Route {
	return append([]server.Route{
		{Path: PathServerRequester, Area: areaName, Handler: a.serverRequester, Fail: a.failRoute, Outcome: outcome, Account: a.hostOf,
			Doc: server.Doc{
				Summary: "Game servers and their managers (function f in the query; in the form for get_spectator_header and set_replay_size): " +
					"replay_auth, new_session, set_online, start_game, c_conn, accept_key, get_upgrades, aids2cookie, get_quickstats, shutdown, set_replay_size, get_spectator_header.",
				Form:  newSessionRequest{},
				Reply: "PHP arrays per function (host/matches/doc.go); set_online and shutdown an empty 200; get_spectator_header JSON. Failure: 400 (bad request), 401 (wrong login or password, unknown session), 403 (not a game host or not the match's server), 404 (unknown function), 5xx (the server could not serve it): the PHP array `error` => sentence.",
			}},
		{Path: PathStatsRequester, Area: areaName, Handler: a.statsRequester, Fail: a.failRoute, Outcome: outcome, Account: a.hostOf,
			Limits: wire.Limits{MaxBody: int64(a.set.MaxStatsBody), MaxFields: a.set.MaxStatsValues, MaxFiles: 1},
			Doc: server.Doc{
				Summary: "A match's statistics: f=submit_stats (the game server that started the match, by its session) or f=resubmit_stats (its host's manager: login, password, resubmission key).",
				Form:    submitRequest{}, ReplyValue: resubmitReply{},
				Reply: "`match_info`, `match_summ`, `match_stats`, `match_history` each \"OK\" (and `match_id` on resubmit) once the match is recorded; a duplicate answers the same and changes nothing. Failure: status and PHP `error` array as /server_requester.php.",
			}},
	}, append(a.clientRoutes(), a.historyRoutes()...)...) // server_list, chatclient_connect (serverlist.go, chatconnect.go); history.go
}

// outcome counts a reply with an error array as refused (a 4xx or 5xx
// status counts by its class first).
func outcome(body []byte) string {
	if strings.HasPrefix(string(body), `a:1:{s:5:"error";`) || strings.HasPrefix(string(body), `a:3:{s:5:"error";`) {
		return server.OutcomeRefused
	}
	return ""
}

// ServerView is a server as the operator sees it.
type ServerView struct {
	Host      string
	HostID    storage.AccountID
	Rec       *pb.Server
	Online    bool
	LastHeard time.Time
	// GameHost is whether the host holds the game-host role: without it
	// its servers' sessions are refused, so none is online.
	GameHost bool
}

// Servers lists every server and manager of every game host, by host and
// id. live (nil on a stopped server) adds what this node heard in memory.
func Servers(db *storage.DB, live *Area, now time.Time, timeout time.Duration) ([]ServerView, error) {
	var out []ServerView
	type hostOf struct {
		login    string
		gameHost bool
	}
	hosts := map[storage.AccountID]hostOf{}
	err := servers.EachAll(db, func(id storage.AccountID, _ string, s *pb.Server) error {
		h, ok := hosts[id]
		if !ok {
			if acct, err := db.Account(id); err == nil {
				h.login = acct.Login
			}
			var err error
			if h.gameHost, err = IsGameHost(db, id); err != nil {
				return err
			}
			hosts[id] = h
		}
		v := ServerView{Host: h.login, HostID: id, Rec: s, LastHeard: time.Unix(s.Heard, 0), GameHost: h.gameHost}
		if live != nil {
			v.LastHeard = live.lastHeard(s)
		}
		v.Online = h.gameHost && !s.ShutDown && len(s.SecretHash) > 0 && now.Sub(v.LastHeard) <= timeout
		out = append(out, v)
		return nil
	})
	return out, err
}

// MatchView is a match with its host.
type MatchView struct {
	Host  storage.AccountID
	Match *pb.Match
}

// Matches lists the stored matches, most recent first, at most limit. It
// scans the index of match ids (small entries, in id order) and reads
// only the limit most recent matches.
func Matches(db *storage.DB, limit int) ([]MatchView, error) {
	type ref struct {
		id   uint32
		host storage.AccountID
	}
	var last []ref // a ring of the limit highest ids so far
	next := 0
	err := matchIndex.Each(db, "", func(key string, host storage.AccountID, _ *wrapperspb.UInt32Value) error {
		if len(key) != 4 {
			return nil
		}
		r := ref{id: binary.BigEndian.Uint32([]byte(key)), host: host}
		if len(last) < limit {
			last = append(last, r)
		} else {
			last[next] = r
			next = (next + 1) % limit
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(last, func(i, j int) bool { return last[i].id > last[j].id })
	out := make([]MatchView, 0, len(last))
	for _, r := range last {
		m, err := matchRecs.Get(db, r.host, storage.KeyUint32(r.id))
		if errors.Is(err, storage.ErrNotFound) {
			continue // its host was deleted meanwhile
		} else if err != nil {
			return nil, err
		}
		out = append(out, MatchView{Host: r.host, Match: m})
	}
	return out, nil
}

func stateName(s *pb.Server, online bool) string {
	switch {
	case s.ShutDown:
		return "shut down"
	case !online:
		return "offline"
	case s.Manager:
		return "online"
	}
	return map[int32]string{0: "sleeping", 1: "idle", 2: "lobby", 3: "in game"}[s.State]
}

func unixText(t int64) string {
	if t == 0 {
		return "-"
	}
	return time.Unix(t, 0).UTC().Format("2006-01-02 15:04:05")
}

type serversRequest struct{}

func (*serversRequest) Validate() error { return nil }

func (*serversRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	live, _ := e.Live.(*Area)
	set := SettingsOf(e.Config)
	vs, err := Servers(e.Sys.DB(), live, time.Now(), set.HeartbeatTimeout.Duration)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		fmt.Fprintln(out, "no game server has registered")
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tHOST\tINSTANCE\tADDRESS\tSTATE\tLAST HEARTBEAT\tMATCH")
	for _, v := range vs {
		inst := v.Rec.Instance
		if v.Rec.Manager {
			inst = "(manager)"
		}
		match := "-"
		if v.Rec.CurrentMatch != 0 {
			match = strconv.FormatUint(uint64(v.Rec.CurrentMatch), 10)
		}
		state := stateName(v.Rec, v.Online)
		if !v.GameHost && !v.Rec.ShutDown {
			state = "not a game host"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s:%d\t%s\t%s\t%s\n", v.Rec.Id, v.Host, inst, v.Rec.Address, v.Rec.Port,
			state, v.LastHeard.UTC().Format("2006-01-02 15:04:05"), match)
	}
	return w.Flush()
}

type listRequest struct {
	Limit int `json:"limit"`
}

func (r *listRequest) Validate() error {
	if r.Limit < 1 || r.Limit > 10000 {
		return fmt.Errorf("--limit must be 1..10000, got %d", r.Limit)
	}
	return nil
}

func (r *listRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	ms, err := Matches(e.Sys.DB(), r.Limit)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		fmt.Fprintln(out, "no match was started")
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "MATCH\tSERVER\tSTARTED\tMAP\tPLAYERS\tRECORDED\tWINNER")
	for _, v := range ms {
		m := v.Match
		rec, winner := "no", "-"
		if m.Recorded {
			rec = unixText(m.Submitted)
			winner = "team " + strconv.Itoa(int(m.Winner))
		}
		fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%d\t%s\t%s\n", m.Id, m.ServerId, unixText(m.Started), m.Map, len(m.Participants), rec, winner)
	}
	return w.Flush()
}

type showRequest struct {
	ID string `json:"id"`
}

func (r *showRequest) Args(args []string) error {
	if len(args) != 1 {
		return errors.New("give one match ID")
	}
	r.ID = args[0]
	return nil
}

func (r *showRequest) Validate() error {
	if _, err := strconv.ParseUint(r.ID, 10, 32); err != nil || r.ID == "0" {
		return fmt.Errorf("matches show ID: %q is not a match ID (see 'honmaster matches list')", r.ID)
	}
	return nil
}

func (r *showRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	id, _ := strconv.ParseUint(r.ID, 10, 32)
	m, host, err := LoadMatch(e.Sys.DB(), uint32(id))
	if errors.Is(err, storage.ErrNotFound) {
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("no match has the ID %s (see 'honmaster matches list')", r.ID)}
	} else if err != nil {
		return err
	}
	hostLogin := strconv.FormatUint(uint64(host), 10)
	if acct, err := e.Sys.DB().Account(host); err == nil {
		hostLogin = acct.Login
	}
	fmt.Fprintf(out, "match %d server %d host %s started %s map %q name %q\n", m.Id, m.ServerId, hostLogin, unixText(m.Started), m.Map, m.Name)
	if !m.Recorded {
		fmt.Fprintf(out, "not recorded; %d participants connected\n", len(m.Participants))
		for _, p := range m.Participants {
			fmt.Fprintf(out, "participant %d %q\n", p.AccountId, p.Nickname)
		}
		return nil
	}
	how := "submitted"
	if m.Resubmitted {
		how = "resubmitted"
	}
	fmt.Fprintf(out, "%s %s, %d bytes; winner team %d; time played %ds\n", how, unixText(m.Submitted), m.StatsBytes, m.Winner, m.TimePlayed)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ACCOUNT\tNICKNAME\tTEAM\tHERO\tK/D/A\tRESULT")
	for _, p := range m.Results {
		res := []string{}
		for _, x := range []struct {
			on   bool
			name string
		}{{p.Win, "win"}, {p.Loss, "loss"}, {p.Concede, "concede"}, {p.Disco, "disconnect"}} {
			if x.on {
				res = append(res, x.name)
			}
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%s\t%d/%d/%d\t%s\n", p.AccountId, p.Nickname, p.Team, p.Hero, p.Kills, p.Deaths, p.Assists, strings.Join(res, ","))
	}
	return w.Flush()
}

type keyRequest struct {
	Match uint64 `json:"match"`
}

func (r *keyRequest) Validate() error {
	if r.Match == 0 || r.Match > 1<<31-1 {
		return errors.New("--match needs a match ID (1..2147483647)")
	}
	return nil
}

func (r *keyRequest) Run(_ context.Context, _ area.CommandEnv, out io.Writer) error {
	fmt.Fprintln(out, ResubmissionKey(uint32(r.Match)))
	return nil
}

// The operator API (the load tester uses these exact shapes).

type gameHostBody struct {
	Login    string `json:"login"`
	GameHost *bool  `json:"game_host"`
}

type gameHostReply struct {
	AccountID uint32 `json:"account_id"`
	GameHost  bool   `json:"game_host"`
}

func (a *Area) apiGameHost(ctx context.Context, r *http.Request) (any, error) {
	// The host's API refuses unknown, repeated and misspelled names and
	// anything after the object before this runs (the route's APIFields).
	var b gameHostBody
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&b); err != nil || b.Login == "" || b.GameHost == nil {
		return nil, &area.OperatorError{Msg: `want a JSON body {"login":"L","game_host":true|false}`, Cause: area.ErrBadRequest}
	}
	id, err := SetGameHostByLogin(ctx, a.sys, b.Login, *b.GameHost)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, actors.ErrNoAccount) {
		return nil, &area.OperatorError{Msg: fmt.Sprintf("no account has the login %q", b.Login), Cause: err}
	} else if err != nil {
		return nil, err
	}
	return gameHostReply{AccountID: uint32(id), GameHost: *b.GameHost}, nil
}

// TotalsReply is GET /api/matches/totals.
type TotalsReply struct {
	AccountID uint32           `json:"account_id"`
	Matches   int64            `json:"matches"`
	Wins      int64            `json:"wins"`
	Losses    int64            `json:"losses"`
	Concedes  int64            `json:"concedes"`
	Discos    int64            `json:"discos"`
	Kills     int64            `json:"kills"`
	Deaths    int64            `json:"deaths"`
	Assists   int64            `json:"assists"`
	Heroes    map[string]int64 `json:"heroes"`
}

func queryID(r *http.Request, name string) (uint32, error) {
	n, err := strconv.ParseUint(r.URL.Query().Get(name), 10, 32)
	if err != nil || n == 0 {
		return 0, &area.OperatorError{Msg: fmt.Sprintf("want ?%s=N", name), Cause: area.ErrBadRequest}
	}
	return uint32(n), nil
}

func (a *Area) apiTotals(_ context.Context, r *http.Request) (any, error) {
	id, err := queryID(r, "account_id")
	if err != nil {
		return nil, err
	}
	if ok, err := a.sys.DB().AccountExists(storage.AccountID(id)); err != nil {
		return nil, err
	} else if !ok {
		return nil, &area.OperatorError{Msg: fmt.Sprintf("no account has the ID %d", id), Cause: storage.ErrNotFound}
	}
	t, err := TotalsOf(a.sys.DB(), storage.AccountID(id))
	if err != nil {
		return nil, err
	}
	h := t.Heroes
	if h == nil {
		h = map[string]int64{}
	}
	return TotalsReply{AccountID: id, Matches: t.Matches, Wins: t.Wins, Losses: t.Losses, Concedes: t.Concedes, Discos: t.Discos,
		Kills: t.Kills, Deaths: t.Deaths, Assists: t.Assists, Heroes: h}, nil
}

// MatchReply is GET /api/matches/match.
type MatchReply struct {
	MatchID      uint32   `json:"match_id"`
	ServerID     uint32   `json:"server_id"`
	Recorded     bool     `json:"recorded"`
	Participants []uint32 `json:"participants"`
}

func (a *Area) apiMatch(_ context.Context, r *http.Request) (any, error) {
	id, err := queryID(r, "id")
	if err != nil {
		return nil, err
	}
	m, _, err := LoadMatch(a.sys.DB(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &area.OperatorError{Msg: fmt.Sprintf("no match has the ID %d", id), Cause: err}
	} else if err != nil {
		return nil, err
	}
	rep := MatchReply{MatchID: m.Id, ServerID: m.ServerId, Recorded: m.Recorded, Participants: []uint32{}}
	for _, p := range m.Participants {
		rep.Participants = append(rep.Participants, p.AccountId)
	}
	return rep, nil
}
