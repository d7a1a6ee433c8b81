package matchsim_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/matches"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// fakeClock is the matches area's clock in these tests: the wall clock
// moved forward by what the test advanced it.
type fakeClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// useFakeClock sets the area's clock for the test.
func useFakeClock(t *testing.T) *fakeClock {
	c := &fakeClock{}
	matches.SetClock(c.now)
	t.Cleanup(func() { matches.SetClock(nil) })
	return c
}

const (
	testSalt      = "test-chat-salt"
	testHeartbeat = 10 * time.Second
	testKeyLife   = time.Minute
)

// serverListConfig: a short heartbeat timeout and key lifetime, a chat
// salt, and the caller's address taken from X-Forwarded-For (the
// connection's peer, loopback, being the one proxy), so that the test can
// call as a chat server (loopback, the default chat_servers) and as
// anyone else.
func serverListConfig(c *config.Config) {
	set := matches.SettingsOf(c)
	set.HeartbeatTimeout.Duration, set.KeyLifetime.Duration, set.ChatSalt = testHeartbeat, testKeyLife, testSalt
	config.SetSection(c, "matches", set)
	c.Server.TrustForwardedFor = true
}

// TestServerListAndChatConnect: the client's server list and the chat
// servers' session check end to end, with the simulated game servers.
func TestServerListAndChatConnect(t *testing.T) {
	clk := useFakeClock(t)
	w, _ := startWorld(t, serverListConfig)
	serverListScenario(t, w, clk)
}

// TestServerListOnPostgres is the same over PostgreSQL (skipped without
// HONMASTER_TEST_POSTGRES_URL; .ci/postgres sets it).
func TestServerListOnPostgres(t *testing.T) {
	pg := storagetest.PostgresURL(t)
	clk := useFakeClock(t)
	w, _ := startWorld(t, func(c *config.Config) {
		serverListConfig(c)
		c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, pg
	})
	serverListScenario(t, w, clk)
}

func serverListScenario(t *testing.T, w *world, clk *fakeClock) {
	ctx := context.Background()
	ps := w.players(t, 3)
	idle := w.server(t)
	lobby := w.server(t)
	if _, err := lobby.SetOnline(ctx, matchsim.StateLobby); err != nil {
		t.Fatal(err)
	}
	list := func(p *player, gametype, region string) *matchsim.ServerList {
		t.Helper()
		l, err := matchsim.ListServers(ctx, w.c, p.cookie, gametype, region)
		if err != nil {
			t.Fatalf("server_list %s %q: %v", gametype, region, err)
		}
		return l
	}
	accept := func(g *matchsim.GameServer, key string) int64 {
		t.Helper()
		off, _, err := g.AcceptKey(ctx, key)
		if err != nil {
			t.Fatalf("accept_key: %v", err)
		}
		return off
	}

	t.Run("lists", func(t *testing.T) {
		create := list(ps[0], matchsim.GameTypeCreate, "")
		e, ok := create.Servers[idle.ServerID]
		if !ok || e.IP != "127.0.0.1" || e.Port != int64(idle.Port) || e.Location != "EU" || e.CState != "1" || e.Class != "" {
			t.Fatalf("the idle server in the create list: %+v (%v)", e, create.Reply)
		}
		if _, ok := create.Servers[lobby.ServerID]; ok {
			t.Fatalf("a server in a lobby in the create list: %v", create.Reply)
		}
		join := list(ps[0], matchsim.GameTypeJoin, "")
		if e, ok := join.Servers[lobby.ServerID]; !ok || e.Class != "1" || e.CState != "" {
			t.Fatalf("the lobby in the join list: %+v (%v)", e, join.Reply)
		}
		if _, ok := join.Servers[idle.ServerID]; ok {
			t.Fatalf("an idle server in the join list: %v", join.Reply)
		}
		if got := list(ps[0], matchsim.GameTypeCreate, "eu"); len(got.Servers) == 0 {
			t.Fatalf("region eu lists nothing: %v", got.Reply)
		}
		if got := list(ps[0], matchsim.GameTypeCreate, "US"); len(got.Servers) != 0 {
			t.Fatalf("region US lists EU servers: %v", got.Reply)
		}
		if create.Key == join.Key || create.KeyHash != matchsim.KeyHash(create.Key, ps[0].cookie, testSalt) {
			t.Fatalf("keys %q %q, hash %q", create.Key, join.Key, create.KeyHash)
		}
		for _, gt := range []string{"11", "", "9", "abc"} {
			r, err := matchsim.Call(ctx, w.c, "server_list", matchsim.PathClient+"?f=server_list",
				url.Values{"cookie": {ps[0].cookie}, "gametype": {gt}})
			if err != nil || r.Status == 200 || !strings.Contains(string(r.Body), "error") {
				t.Fatalf("gametype %q: %v %v", gt, r, err)
			}
			if gt == "11" && r.Status != 422 {
				t.Fatalf("gametype 11: %v", r)
			}
		}
		r, err := matchsim.Call(ctx, w.c, "server_list", matchsim.PathClient+"?f=server_list",
			url.Values{"cookie": {strings.Repeat("ab", 16)}, "gametype": {"90"}})
		if err != nil || r.Status != 401 {
			t.Fatalf("a dead cookie: %v %v", r, err)
		}
	})

	t.Run("a server leaves the list after its heartbeat timeout", func(t *testing.T) {
		if _, ok := list(ps[0], matchsim.GameTypeCreate, "").Servers[idle.ServerID]; !ok {
			t.Fatal("the idle server is not listed")
		}
		clk.advance(testHeartbeat - time.Second)
		if _, ok := list(ps[0], matchsim.GameTypeCreate, "").Servers[idle.ServerID]; !ok {
			t.Fatal("the idle server left the list before its heartbeat timeout")
		}
		clk.advance(2 * time.Second)
		if l := list(ps[0], matchsim.GameTypeCreate, ""); len(l.Servers) != 0 {
			t.Fatalf("servers silent past the heartbeat timeout are listed: %v", l.Reply)
		}
		if l := list(ps[0], matchsim.GameTypeJoin, ""); len(l.Servers) != 0 {
			t.Fatalf("servers silent past the heartbeat timeout are listed: %v", l.Reply)
		}
		for _, g := range []*matchsim.GameServer{idle, lobby} {
			st := matchsim.StateIdle
			if g == lobby {
				st = matchsim.StateLobby
			}
			if _, err := g.SetOnline(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := list(ps[0], matchsim.GameTypeCreate, "").Servers[idle.ServerID]; !ok {
			t.Fatal("the idle server is not listed again after its heartbeat")
		}
		gone := w.server(t)
		if _, ok := list(ps[0], matchsim.GameTypeCreate, "").Servers[gone.ServerID]; !ok {
			t.Fatal("a new server is not listed")
		}
		if _, err := gone.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok := list(ps[0], matchsim.GameTypeCreate, "").Servers[gone.ServerID]; ok {
			t.Fatal("a server that shut down is listed")
		}
	})

	t.Run("a key is accepted once by a server it was meant for", func(t *testing.T) {
		l := list(ps[1], matchsim.GameTypeCreate, "")
		if _, ok := l.Servers[idle.ServerID]; !ok {
			t.Fatal("the idle server is not listed")
		}
		// Another server (not in this list) refuses it, without using it up.
		if off := accept(lobby, l.Key); off != 0 {
			t.Fatalf("a server the list did not show accepted its key: official %d", off)
		}
		// Forged: another secret, another key number, another player.
		forged := []string{l.Key[:len(l.Key)-1] + flip(l.Key[len(l.Key)-1]), l.Key[:8] + flip(l.Key[8]) + l.Key[9:],
			strconv.FormatInt(ps[2].id+1<<32, 16), strings.Repeat("0", len(l.Key)), "", "not a key"}
		other := list(ps[2], matchsim.GameTypeCreate, "")
		forged = append(forged, other.Key[:8]+l.Key[8:])
		for _, k := range forged {
			if off := accept(idle, k); off != 0 {
				t.Fatalf("forged key %q accepted: official %d", k, off)
			}
		}
		if off := accept(idle, l.Key); off != 1 {
			t.Fatalf("the list's key refused by a server it showed: official %d", off)
		}
		// Replayed: by anyone (another player who got hold of it), to the
		// same server or another.
		if off := accept(idle, l.Key); off != 0 {
			t.Fatalf("a key accepted twice: official %d", off)
		}
		// The other player's own key is still good.
		if off := accept(idle, other.Key); off != 1 {
			t.Fatalf("another player's key refused: official %d", off)
		}
		// A player keeps the keys of the 16 lists asked last: the
		// earliest issued goes.
		var recent []string
		for range 17 {
			recent = append(recent, list(ps[2], matchsim.GameTypeCreate, "").Key)
		}
		if off := accept(idle, recent[0]); off != 0 {
			t.Fatalf("the 17th key before the last accepted: official %d", off)
		}
		if off := accept(idle, recent[1]); off != 1 {
			t.Fatalf("the 16th key before the last refused: official %d", off)
		}
		// A list that shows no server gives a key no server accepts.
		if none := list(ps[1], matchsim.GameTypeCreate, "US"); len(none.Servers) != 0 || accept(idle, none.Key) != 0 {
			t.Fatalf("the key of an empty list: %v", none.Reply)
		}
		// A join list's key, for the lobby.
		j := list(ps[1], matchsim.GameTypeJoin, "")
		if off := accept(idle, j.Key); off != 0 {
			t.Fatalf("a join list's key accepted by a server it did not show: %d", off)
		}
		if off := accept(lobby, j.Key); off != 1 {
			t.Fatalf("a join list's key refused by its lobby: %d", off)
		}
		// Two listed servers presenting one key at once: exactly one has it.
		second := w.server(t)
		for round := range 5 {
			k := list(ps[1], matchsim.GameTypeCreate, "")
			if _, ok := k.Servers[second.ServerID]; !ok {
				t.Fatal("the second idle server is not listed")
			}
			offs := make([]int64, 2)
			var wg sync.WaitGroup
			for i, g := range []*matchsim.GameServer{idle, second} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					offs[i], _, _ = g.AcceptKey(ctx, k.Key)
				}()
			}
			wg.Wait()
			if offs[0]+offs[1] != 1 {
				t.Fatalf("round %d: one key presented by two servers at once: official %v", round, offs)
			}
		}
		// Expired.
		e := list(ps[1], matchsim.GameTypeCreate, "")
		clk.advance(testKeyLife + time.Second)
		if off := accept(idle, e.Key); off != 0 {
			t.Fatalf("an expired key accepted: official %d", off)
		}
	})

	t.Run("chatclient_connect", func(t *testing.T) {
		p := ps[0]
		id := strconv.FormatInt(p.id, 10)
		r, err := matchsim.ChatClientConnect(ctx, w.c, id, p.cookie, "3")
		if err != nil || r.Status != 200 {
			t.Fatalf("a live cookie: %v %v", r, err)
		}
		if got, _ := r.Int("account_id"); got != p.id {
			t.Fatalf("account_id %d, want %d: %v", got, p.id, r)
		}
		if nick, _ := r.Str("nickname"); nick != p.login {
			t.Fatalf("nickname %q, want %q", nick, p.login)
		}
		if mode, _ := r.Int("chat_mode_type"); mode != 3 {
			t.Fatalf("chat_mode_type %d: %v", mode, r)
		}
		refusedSession := func(what, account, cookie string) {
			t.Helper()
			r, err := matchsim.ChatClientConnect(ctx, w.c, account, cookie, "0")
			if err != nil || r.Status != 401 || strings.Contains(string(r.Body), "nickname") {
				t.Fatalf("%s: %v %v", what, r, err)
			}
		}
		refusedSession("a wrong cookie", id, strings.Repeat("cd", 16))
		refusedSession("another account's cookie", strconv.FormatInt(ps[1].id, 10), p.cookie)
		refusedSession("no account", "", p.cookie)

		// Not a chat server: the caller as the server sees it (the
		// forwarded address) is not in chat_servers. Answered as an
		// unknown function, whatever the cookie.
		for _, cookie := range []string{p.cookie, strings.Repeat("cd", 16)} {
			req, _ := http.NewRequest("POST", w.c.Base+matchsim.PathClient+"?f=chatclient_connect",
				strings.NewReader(url.Values{"account_id": {id}, "cookie": {cookie}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := make([]byte, 512)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			if want := `a:3:{s:5:"error";s:16:"unknown function";s:16:"vested_threshold";i:5;i:0;b:1;}`; resp.StatusCode != 404 || string(body[:n]) != want {
				t.Fatalf("a caller not configured: %d %q", resp.StatusCode, body[:n])
			}
		}

		// Logged out.
		q := ps[2]
		if r, err := matchsim.Call(ctx, w.c, "logout", matchsim.PathClient+"?f=logout", url.Values{"cookie": {q.cookie}}); err != nil || r.Status != 200 {
			t.Fatalf("logout: %v %v", r, err)
		}
		refusedSession("a logged-out cookie", strconv.FormatInt(q.id, 10), q.cookie)

		// Expired: past the cookie's lifetime on the area's clock.
		clk.advance(25 * time.Hour)
		refusedSession("an expired cookie", id, p.cookie)
	})
}

// flip changes a hex digit.
func flip(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

// TestLoadTestServers runs the load tester's servers operation, mixed
// with matches: every list shows the run's idle server and its key is
// accepted once.
func TestLoadTestServers(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "servers=2,match=1")
	o.Accounts, o.Concurrency, o.Requests = 20, 2, 40
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	op := rep.Op("servers")
	if op == nil || op.OK == 0 || op.Errors != 0 {
		t.Fatalf("servers: %+v", op)
	}
	if !rep.Consistency.OK() {
		t.Errorf("consistency: %s %v", rep.Consistency.Summary(), rep.Consistency.Mismatches)
	}
}
