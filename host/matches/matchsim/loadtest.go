package matchsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/loadtest"
)

// The load tester's "match" operation ("honmaster loadtest --mix match=1"):
// a manager and its game servers, run by the first test account made a
// game host at provisioning, play whole matches with ten of the run's
// logged-in accounts each, and the check at the end compares every
// account's match totals (operator API) with the matches the replies
// acknowledged.
func init() {
	loadtest.RegisterArea(loadtest.Area{Name: areaName, Provision: loadProvision, Check: loadCheck,
		Operations: []loadtest.Operation{{Name: "match", Requests: loadRequests, Do: loadMatch,
			NeedsOperator: "making a game-host account and reading the players' match totals",
			Doc: "a whole match as a game server (start_game, set_online, c_conn of ten of the run's players, submit_stats, " +
				"set_replay_size, set_online), one in ten submitted twice and one in ten resubmitted by the manager; " +
				"the check at the end compares every account's match totals with the acknowledged matches"},
			serversOperation, historyOp}}) // loadtest_servers.go, loadtest_history.go
}

// areaName is the area the operation belongs to.
const areaName = "matches"

// loadRequests are the requests of a match: start_game, two heartbeats,
// ten c_conn, submit_stats and set_replay_size (one more when submitted
// twice or resubmitted; two when a game server first logs in).
const loadRequests = 15

// Operator API routes of the matches area the operation uses.
const (
	apiGameHost = "/api/matches/game-host"
	apiTotals   = "/api/matches/totals"
	apiMatch    = "/api/matches/match"
)

// loadPlayers is how many players a match has (fewer when the run has
// fewer accounts free).
const loadPlayers = 10

// Outcomes of a match's submission.
const (
	outcomeAcked   = iota // the four "OK" keys came back
	outcomeUnknown        // no reply (or a 5xx), even to the manager's resubmissions
	outcomeRefused        // a refusal: nothing may be stored
)

// loadRun is what the operations share over a run.
type loadRun struct {
	mgr      *Manager
	host     string
	password string

	mu      sync.Mutex
	free    []int    // indices of the accounts not playing a match now
	cookies []string // each account's cookie at provisioning
	ids     []int64
	nicks   []string
	servers []*GameServer // game servers not playing a match now
	next    int           // the next game server's instance
	matches []*loadMatchRec
}

// loadMatchRec is one match the run submitted.
type loadMatchRec struct {
	m       *Match
	outcome int
}

func loadRunOf(e *loadtest.Env) *loadRun {
	return loadtest.RunState(e, areaName, func() *loadRun { return &loadRun{} })
}

// loadProvision makes the first test account a game host and logs its
// manager in, and notes every account's cookie and id for the matches.
func loadProvision(ctx context.Context, e *loadtest.Env) error {
	r := loadRunOf(e)
	accts := e.Accounts()
	if len(accts) < 2 {
		return fmt.Errorf("the match operation needs at least 2 accounts (10 a match; --accounts 10 x --concurrency lets every match have 10)")
	}
	host := accts[0]
	var gh struct {
		AccountID int64 `json:"account_id"`
		GameHost  bool  `json:"game_host"`
	}
	if err := e.OperatorPostJSON(ctx, apiGameHost, map[string]any{"login": e.Logins()[0], "game_host": true}, &gh); err != nil {
		return fmt.Errorf("making %s a game host: %w", e.Logins()[0], err)
	}
	if !gh.GameHost || strconv.FormatInt(gh.AccountID, 10) != host.ID() {
		return fmt.Errorf("making %s a game host: the operator API answered %+v", e.Logins()[0], gh)
	}
	r.host, r.password = e.Logins()[0], host.Password()
	r.mgr = NewManager(e.Client(), r.host, r.password)
	if _, err := r.mgr.ReplayAuth(ctx); err != nil {
		return fmt.Errorf("the manager's login: %w", err)
	}
	for i, a := range accts {
		id, err := strconv.ParseInt(a.ID(), 10, 64)
		if err != nil {
			return fmt.Errorf("account id %q: %w", a.ID(), err)
		}
		r.free = append(r.free, i)
		r.cookies = append(r.cookies, a.Cookie())
		r.ids = append(r.ids, id)
		r.nicks = append(r.nicks, e.Logins()[i])
	}
	r.next = 1
	return nil
}

// takeServer returns a game server not playing, logging a new one in when
// none is free.
func (r *loadRun) takeServer(ctx context.Context, e *loadtest.Env) (*GameServer, error) {
	r.mu.Lock()
	if n := len(r.servers); n > 0 {
		g := r.servers[n-1]
		r.servers = r.servers[:n-1]
		r.mu.Unlock()
		return g, nil
	}
	inst := r.next
	r.next++
	r.mu.Unlock()
	g := NewGameServer(e.Client(), r.host, inst, r.password)
	if _, err := g.NewSession(ctx); err != nil {
		r.putServer(g) // its next use logs it in again
		return nil, err
	}
	if _, err := g.SetOnline(ctx, StateIdle); err != nil {
		r.putServer(g)
		return nil, err
	}
	return g, nil
}

func (r *loadRun) putServer(g *GameServer) {
	r.mu.Lock()
	r.servers = append(r.servers, g)
	r.mu.Unlock()
}

// takePlayers takes up to loadPlayers accounts not playing, at random.
func (r *loadRun) takePlayers(rng *rand.Rand) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	rng.Shuffle(len(r.free), func(i, j int) { r.free[i], r.free[j] = r.free[j], r.free[i] })
	n := min(loadPlayers, len(r.free))
	out := slices.Clone(r.free[len(r.free)-n:])
	r.free = r.free[:len(r.free)-n]
	return out
}

func (r *loadRun) putPlayers(idx []int) {
	r.mu.Lock()
	r.free = append(r.free, idx...)
	r.mu.Unlock()
}

// loadFail turns a refusal into a failure of the report's kind
// "refused:<function>" (an HTTP status other than 200: "http_<status>");
// an error without a reply is returned as it is (transport).
func loadFail(err error) error {
	rep, ok := Refused(err)
	if !ok {
		return err
	}
	if rep.Status != 200 {
		return loadtest.Fail("http_"+strconv.Itoa(rep.Status), "%s", err)
	}
	return loadtest.Fail("refused:"+rep.Func, "%s", err)
}

// lost reports whether a submission's error leaves its outcome unknown:
// no reply, or a server error.
func lost(err error) bool {
	rep, ok := Refused(err)
	return !ok || rep.Status >= 500
}

func loadMatch(ctx context.Context, e *loadtest.Env, _ *loadtest.Account, rng *rand.Rand) error {
	r := loadRunOf(e)
	g, err := r.takeServer(ctx, e)
	if err != nil {
		return loadFail(err)
	}
	if g.Session == "" { // a log-in that failed before: again
		if _, err := g.NewSession(ctx); err != nil {
			r.putServer(g)
			return loadFail(err)
		}
	}
	defer r.putServer(g)
	players := r.takePlayers(rng)
	defer r.putPlayers(players)
	if len(players) < 2 {
		return loadtest.Fail("players", "%d accounts free to play: give --accounts at least 10 x --concurrency", len(players))
	}
	if _, err := g.StartGame(ctx); err != nil {
		return loadFail(err)
	}
	if _, err := g.SetOnline(ctx, StateInGame); err != nil {
		return loadFail(err)
	}
	ids, nicks := make([]int64, len(players)), make([]string, len(players))
	for i, p := range players {
		c, err := g.CConn(ctx, r.cookies[p])
		if err != nil {
			return loadFail(err)
		}
		if c.AccountID != r.ids[p] {
			return loadtest.Fail("c_conn", "c_conn of %s's cookie answered account %d, want %d", r.nicks[p], c.AccountID, r.ids[p])
		}
		if c.GameCookie == r.cookies[p] {
			return loadtest.Fail("c_conn", "c_conn answered the player's client cookie as its game_cookie")
		}
		ids[i], nicks[i] = r.ids[p], r.nicks[p]
	}
	m := NewMatch(rng, g.MatchID, g.ServerID, ids, nicks)
	rec := &loadMatchRec{m: m, outcome: outcomeUnknown}
	r.mu.Lock()
	r.matches = append(r.matches, rec)
	r.mu.Unlock()
	form := m.Form()
	// rescued is a submission whose reply was lost and which the
	// manager's resubmission saved: the operation goes on, and is counted
	// as a failure of kind "resubmitted" (the lost reply is the server's).
	var rescued error
	_, err = g.SubmitStats(ctx, form)
	switch {
	case err == nil:
		rec.setOutcome(r, outcomeAcked)
	case lost(err):
		// What a manager does with the M<id>.stats file the server left
		// (HoNfigurator looks for them every 10 s; here sooner: 0.25 s,
		// 0.5 s, 1 s).
		for try := 0; try < 3 && ctx.Err() == nil && rescued == nil; try++ {
			select {
			case <-time.After(time.Duration(250<<try) * time.Millisecond):
			case <-ctx.Done():
			}
			_, rerr := r.mgr.Resubmit(ctx, m.MatchID, m.ServerID, form)
			switch {
			case rerr == nil:
				rec.setOutcome(r, outcomeAcked)
				rescued = err
			case !lost(rerr):
				rec.setOutcome(r, outcomeRefused)
				return loadFail(rerr)
			}
		}
		if rescued == nil {
			return loadFail(err)
		}
	default:
		rec.setOutcome(r, outcomeRefused)
		return loadFail(err)
	}
	switch rng.IntN(10) {
	case 0: // the game server sends it again (its reply was late)
		if _, err := g.SubmitStats(ctx, form); err != nil {
			return loadFail(err)
		}
	case 1: // the manager resubmits a file the server had left
		if _, err := r.mgr.Resubmit(ctx, m.MatchID, m.ServerID, form); err != nil {
			return loadFail(err)
		}
	}
	if _, err := g.SetReplaySize(ctx, m.MatchID, int64(2_000_000+m.Seconds*1000)); err != nil {
		return loadFail(err)
	}
	if _, err := g.SetOnline(ctx, StateIdle); err != nil {
		return loadFail(err)
	}
	if rescued != nil {
		return loadtest.Fail("resubmitted", "submit_stats: %v; the manager's resubmission was acknowledged", rescued)
	}
	return nil
}

func (rec *loadMatchRec) setOutcome(r *loadRun, o int) {
	r.mu.Lock()
	rec.outcome = o
	r.mu.Unlock()
}

// MatchRecord is a match as the area's operator API gives it
// (GET /api/matches/match?id=N).
type MatchRecord struct {
	MatchID      int64   `json:"match_id"`
	ServerID     int64   `json:"server_id"`
	Recorded     bool    `json:"recorded"`
	Participants []int64 `json:"participants"`
}

// loadCheckTries bounds the end-of-run check's reads of the totals: the
// players' totals are updated by each one's actor after the match is
// durable, so the last ones may land just after the last reply.
const (
	loadCheckTries = 20
	loadCheckPause = 500 * time.Millisecond
)

// loadCheck settles the matches whose outcome stayed unknown by asking the
// server whether it recorded them, checks that no refused match was
// recorded, then compares every account's totals with the matches counted.
func loadCheck(ctx context.Context, e *loadtest.Env, c *loadtest.Consistency) {
	r := loadRunOf(e)
	if r.mgr == nil {
		return
	}
	r.mu.Lock()
	matches := slices.Clone(r.matches)
	r.mu.Unlock()
	want := map[int64]*Totals{}
	for _, id := range r.ids {
		want[id] = &Totals{AccountID: id}
	}
	leftOut := map[int64]bool{}
	var countedMatches []*Match
	recs := c.Area("matches refused", "refused matches not recorded")
	settled := c.Area("matches unknown", "matches of unknown outcome settled by the server's record")
	for _, mr := range matches {
		counted := mr.outcome == outcomeAcked
		if mr.outcome != outcomeAcked {
			var got MatchRecord
			err := e.OperatorGet(ctx, apiMatch, url.Values{"id": {strconv.FormatInt(mr.m.MatchID, 10)}}, &got)
			switch {
			case err != nil:
				for _, p := range mr.m.Players {
					leftOut[p.AccountID] = true
				}
				if mr.outcome == outcomeRefused {
					recs.Left++
				} else {
					settled.Left++
				}
				continue
			case mr.outcome == outcomeRefused:
				recs.Checked++
				if got.Recorded {
					c.Mismatch("match %d: its submission was refused, yet it was recorded", mr.m.MatchID)
				} else {
					recs.OK++
				}
			default:
				counted = got.Recorded
				settled.Checked++
				settled.OK++
			}
		}
		if counted {
			countedMatches = append(countedMatches, mr.m)
			for _, p := range mr.m.Players {
				want[p.AccountID].Add(p, mr.m.Winner)
			}
		}
	}
	var last []string
	var lastOK, lastChecked int
	for try := 0; try < loadCheckTries && ctx.Err() == nil; try++ {
		if try > 0 {
			select {
			case <-time.After(loadCheckPause):
			case <-ctx.Done():
			}
		}
		last, lastOK, lastChecked = nil, 0, 0
		for _, id := range r.ids {
			if leftOut[id] {
				continue
			}
			lastChecked++
			var got Totals
			if err := e.OperatorGet(ctx, apiTotals, url.Values{"account_id": {strconv.FormatInt(id, 10)}}, &got); err != nil {
				last = append(last, fmt.Sprintf("account %d: totals: %v", id, err))
				continue
			}
			if d := want[id].Diff(&got); d != "" {
				last = append(last, fmt.Sprintf("account %d: %s (every acknowledged match once)", id, d))
				continue
			}
			lastOK++
		}
		if lastOK == lastChecked {
			break
		}
	}
	tot := c.Area("matches totals", "accounts' match totals")
	tot.Checked += lastChecked
	tot.OK += lastOK
	tot.Left += len(leftOut)
	for _, m := range last {
		c.Mismatch("%s", m)
	}
	historyCheck(ctx, e, c, countedMatches, leftOut)
}
