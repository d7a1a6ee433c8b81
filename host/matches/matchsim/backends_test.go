package matchsim_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cluster/clustertest"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestMatchesOnPostgres plays the whole sequence on a server over
// PostgreSQL (skipped without HONMASTER_TEST_POSTGRES_URL; .ci/postgres
// sets it).
func TestMatchesOnPostgres(t *testing.T) {
	pg := storagetest.PostgresURL(t)
	w, _ := startWorld(t, func(c *config.Config) {
		c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, pg
	})
	wholeSequence(t, w)
}

// TestLoadTestMatch runs the load tester's match operation on one server,
// mixed with logins (a player's new session leaves the cookie the match
// operation took at provisioning alive): its matches are acknowledged and
// its end-of-run check (every account's totals against the acknowledged
// matches) passes.
func TestLoadTestMatch(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "match=3,login=1")
	o.Accounts, o.Concurrency, o.Requests = 20, 2, 40
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkLoadTest(t, rep, 20)
}

// checkLoadTest checks a run of match: every operation succeeded, and the
// area's check compared all the accounts' totals, which agreed.
func checkLoadTest(t *testing.T, rep *loadtest.Report, accounts int) {
	t.Helper()
	op := rep.Op("match")
	if op == nil || op.OK == 0 {
		t.Fatalf("no match acknowledged: %+v", op)
	}
	if op.Errors != 0 {
		t.Errorf("%d matches failed: %v %v", op.Errors, op.Kinds, op.FirstErrors)
	}
	c := rep.Consistency
	tot := c.Areas["matches totals"]
	if !c.OK() || tot == nil || tot.Checked != accounts || tot.OK != accounts {
		t.Errorf("consistency: %s %v", c.Summary(), c.Mismatches)
	}
	t.Logf("%d matches; consistency: %s", op.OK, c.Summary())
}

// TestMatchesInACluster: three nodes over one PostgreSQL database, the
// players logged in through nodes 1 and 2, the game server and its
// manager on node 0: players list the server through nodes 1 and 2, and
// the server accepts each one's key once (serverListInACluster); the
// match is recorded and each player's totals
// count it once, read through two nodes; then three matches of the same
// host through the three nodes at once (oneHostThroughEveryNode); then the
// load tester's match operation through all three nodes (each request to
// a node at random: a match's submission on one node, its players homed
// on the others) passes its check with no match failed. Skipped without
// HONMASTER_TEST_POSTGRES_URL.
func TestMatchesInACluster(t *testing.T) {
	if raceDetector {
		t.Skip("three server processes of this binary built with -race: slow; the plain pass runs it")
	}
	if testing.Short() {
		t.Skip("runs three server processes; skipped with -short")
	}
	pg := storagetest.PostgresURL(t)
	const nodes = 3
	addrs := clustertest.FreeAddrs(t, nodes)
	certs := t.TempDir()
	var names []string
	for i := range nodes {
		names = append(names, fmt.Sprintf("n%d=127.0.0.1", i))
	}
	var out, errOut strings.Builder
	if code := cli.Main(context.Background(), []string{"cluster", "certs", "--out", certs, "--nodes", strings.Join(names, ",")}, &out, &errOut); code != 0 {
		t.Fatalf("cluster certs: %s", errOut.String())
	}
	children, datas := make([]*child, nodes), make([]string, nodes)
	for i := range nodes {
		var peers []string
		for j, a := range addrs {
			if j != i {
				peers = append(peers, strconv.Quote(a))
			}
		}
		conf := childConfig(t, fmt.Sprintf("[storage]\nbackend = \"postgres\"\n[storage.postgres]\nurl = %q\n"+
			"[cluster]\nenabled = true\nname = \"matches\"\nnode = \"n%d\"\nlisten = %q\npeers = [%s]\n"+
			"tls_ca = %q\ntls_cert = %q\ntls_key = %q\n",
			pg, i, addrs[i], strings.Join(peers, ", "), filepath.Join(certs, "ca.pem"),
			filepath.Join(certs, fmt.Sprintf("n%d.pem", i)), filepath.Join(certs, fmt.Sprintf("n%d-key.pem", i))))
		datas[i] = t.TempDir()
		children[i] = startChild(t, datas[i], conf)
	}
	for _, ch := range children {
		waitMembers(t, ch.addr, nodes)
	}
	clients := make([]*client.Client, nodes)
	ops := make([]*opAPI, nodes)
	for i, ch := range children {
		clients[i] = client.New("http://" + ch.addr)
		ops[i] = newOpAPI(t, ch.opAddr, datas[i])
	}
	w := newWorld(t, clients[0], ops[0], "c")
	var ps []*player
	for i := range 10 {
		on := &world{c: clients[1+i%2], op: ops[0], prefix: "c", next: i}
		ps = append(ps, on.players(t, 1)...)
	}
	g := w.server(t)
	spare := (&world{c: clients[1], op: ops[0], prefix: "c", next: 10}).players(t, 1)[0]
	serverListInACluster(t, clients, g, ps[0], ps[1], spare)
	m := start(t, g, ps, 40)
	if _, err := g.SubmitStats(context.Background(), m.Form()); err != nil {
		t.Fatal(err)
	}
	if !ops[1].match(t, m.MatchID).Recorded {
		t.Error("the match is not recorded as node 1 sees it")
	}
	checkTotals(t, ops[0], want(m))
	checkTotals(t, ops[1], want(m))
	// The client's reads through the third node.
	if r, err := matchsim.GetMatchStats(context.Background(), clients[2], ps[0].cookie, m.MatchID); err != nil {
		t.Errorf("get_match_stats through node 2: %v", err)
	} else if d := m.CheckMatchStats(r); d != "" {
		t.Errorf("get_match_stats through node 2: %s", d)
	}
	if r, err := matchsim.HistoryOverview(context.Background(), clients[2], ps[1].login, 0); err != nil {
		t.Errorf("match_history_overview through node 2: %v", err)
	} else if got := matchsim.HistoryEntries(r); len(got) != 1 || m.CheckHistoryEntry(got[0], m.Players[1]) != "" {
		t.Errorf("match_history_overview through node 2: %q", got)
	}

	oneHostThroughEveryNode(t, children, clients, ops[0])

	tok, err := os.ReadFile(filepath.Join(datas[0], operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	mix, _ := loadtest.ParseMix("match=1,history=1")
	o := loadtest.Options{Operator: "http://" + children[0].opAddr, Token: strings.TrimSpace(string(tok)), Mix: mix,
		Duration: 2 * time.Minute, Accounts: 20, Concurrency: 2, Requests: 10}
	for _, ch := range children {
		o.Targets = append(o.Targets, "http://"+ch.addr)
	}
	rep, err := loadtest.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkLoadTest(t, rep, 20)
	for _, target := range o.Targets {
		if rep.Targets[target] == 0 {
			t.Errorf("the load tester sent no request to %s: %v", target, rep.Targets)
		}
	}
	for _, ch := range children {
		ch.stop()
	}
}

// serverListInACluster: a player logged in through node 1 asks the
// server list through node 1 and finds the game server g (idle, its
// requests through node 0); g's accept_key (served on its host's home)
// accepts the key once, with the player's actor on the player's home,
// and refuses it replayed; another player's list through node 2 gives a
// key g accepts once too.
func serverListInACluster(t *testing.T, clients []*client.Client, g *matchsim.GameServer, on1, on2, spare *player) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct {
		node int
		p    *player
	}{{1, on1}, {2, on2}} {
		l, err := matchsim.ListServers(ctx, clients[c.node], c.p.cookie, matchsim.GameTypeCreate, "")
		if err != nil {
			t.Fatalf("server_list through node %d: %v", c.node, err)
		}
		if e, ok := l.Servers[g.ServerID]; !ok || e.Port != int64(g.Port) || e.CState != "1" {
			t.Fatalf("server_list through node %d: the idle game server is not listed: %+v (%v)", c.node, e, l.Reply)
		}
		for i, want := range []int64{1, 0} {
			off, r, err := g.AcceptKey(ctx, l.Key)
			if err != nil || off != want {
				t.Fatalf("accept_key (%d) of a key listed through node %d: official %d (%v, %v), want %d", i+1, c.node, off, r, err, want)
			}
		}
		// A chat server checks the session through another node (the
		// request goes to the player's home, whose session it is).
		chat := clients[(c.node+1)%len(clients)]
		id := strconv.FormatInt(c.p.id, 10)
		if r, err := matchsim.ChatClientConnect(ctx, chat, id, c.p.cookie, "3"); err != nil || r.Status != 200 {
			t.Fatalf("chatclient_connect of a session of node %d through another node: %v %v", c.node, r, err)
		} else if got, _ := r.Int("account_id"); got != c.p.id {
			t.Fatalf("chatclient_connect through another node: account_id %d, want %d", got, c.p.id)
		}
		if r, err := matchsim.ChatClientConnect(ctx, chat, id, strings.Repeat("cd", 16), "3"); err != nil || r.Status != 401 {
			t.Fatalf("chatclient_connect of a wrong cookie through another node: %v %v", r, err)
		}
	}
	// A session logged out through one node is refused by a chat server
	// asking another.
	p := spare
	if _, err := clients[1].PostForm(ctx, matchsim.PathClient+"?f=logout", url.Values{"cookie": {p.cookie}}); err != nil {
		t.Fatal(err)
	}
	if r, err := matchsim.ChatClientConnect(ctx, clients[2], strconv.FormatInt(p.id, 10), p.cookie, "3"); err != nil || r.Status != 401 {
		t.Fatalf("chatclient_connect of a session logged out through another node: %v %v", r, err)
	}
}

// oneHostThroughEveryNode runs three matches of the game host "cgh" at
// once, each game server's requests through another node (the load
// balancer's spread), its ten players logged in through all three, and a
// second manager session through the third node. Every write of the game
// host is made by the host's actor on its home node, whichever node
// received the request (the area's routes name the host: server.Route.
// Account), so no node changes the host account in a transient activation
// that would fence the home's, and no request fails as busy: the nodes'
// honmaster_cluster_transient_changes_total do not move, but for requests
// served away from home because their home missed a probe
// (_cluster_served_unreachable_total), which a loaded machine may cause.
// Before the routes named the host, every request of a server whose node
// was not the host's home wrote the host transiently there (and c_conn
// wrote it on the player's home). Then the three matches are submitted at
// once, each through its server's node, and each player's totals count
// their match once; a resubmission by the manager through another node
// answers OK and changes nothing.
func oneHostThroughEveryNode(t *testing.T, children []*child, clients []*client.Client, op *opAPI) {
	t.Helper()
	const matches, each = 3, 10
	teams := make([][]*player, matches)
	for k := range matches * each {
		on := &world{c: clients[k%len(clients)], op: op, prefix: "c", next: 100 + k}
		teams[k/each] = append(teams[k/each], on.players(t, 1)...)
	}
	counters := func() (transient, unreachable int64) {
		for _, ch := range children {
			transient += metricOf(t, ch.opAddr, "honmaster_cluster_transient_changes_total")
			unreachable += metricOf(t, ch.opAddr, "honmaster_cluster_served_unreachable_total")
		}
		return transient, unreachable
	}
	transient0, unreachable0 := counters()
	ctx := context.Background()
	ms := make([]*matchsim.Match, matches)
	gs := make([]*matchsim.GameServer, matches)
	errs := make([]error, matches+1)
	var wg sync.WaitGroup
	for i := range matches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := matchsim.NewGameServer(clients[i%len(clients)], "cgh", 10+i, password)
			if _, err := g.NewSession(ctx); err != nil {
				errs[i] = fmt.Errorf("new_session via node %d: %w", i, err)
				return
			}
			if _, err := g.SetOnline(ctx, matchsim.StateIdle); err != nil {
				errs[i] = fmt.Errorf("set_online via node %d: %w", i, err)
				return
			}
			gs[i] = g
			ms[i], errs[i] = startE(g, teams[i], uint64(70+i))
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := matchsim.NewManager(clients[2], "cgh", password).ReplayAuth(ctx); err != nil {
			errs[matches] = fmt.Errorf("replay_auth via node 2: %w", err)
		}
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	transient, unreachable := counters()
	t.Logf("one host's matches through three nodes: %d transient changes, %d requests served away from an unreachable home",
		transient-transient0, unreachable-unreachable0)
	if d, u := transient-transient0, unreachable-unreachable0; d > u {
		t.Errorf("%d changes in transient activations while three servers of one host ran their matches through three nodes "+
			"(%d requests served away from their home because it was unreachable): the host's writes did not all reach its home", d, u)
	}
	for i := range matches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := gs[i].SubmitStats(ctx, ms[i].Form()); err != nil {
				errs[i] = fmt.Errorf("submit_stats via node %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkTotals(t, op, want(ms...))
	if _, err := matchsim.NewManager(clients[1], "cgh", password).Resubmit(ctx, ms[0].MatchID, ms[0].ServerID, ms[0].Form()); err != nil {
		t.Fatalf("resubmit_stats via node 1: %v", err)
	}
	checkTotals(t, op, want(ms...))
}

// metricOf is the value of the counter name (without labels but the
// node's) on the operator listener at addr.
func metricOf(t *testing.T, addr, name string) int64 {
	t.Helper()
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, name+"{"); ok {
			_, v, _ := strings.Cut(rest, "} ")
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %q", name, l)
			}
			return int64(n)
		}
	}
	t.Fatalf("no %s on %s", name, addr)
	return 0
}

var membersRE = regexp.MustCompile(`member, (\d+) nodes`)

// waitMembers waits (at most a minute) until the node at addr says, on
// /healthz, that the cluster has want members.
func waitMembers(t *testing.T, addr string, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if r, err := http.Get("http://" + addr + "/healthz"); err == nil {
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if m := membersRE.FindSubmatch(b); m != nil && string(m[1]) == strconv.Itoa(want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s does not see %d members within a minute", addr, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLoadTestMatchPluginKilled kills the matches plugin twice during an
// open-loop run of match: submissions it costs fail (or go through the
// manager's resubmission), every scheduled operation is accounted for,
// and the end-of-run check still finds every account's totals equal to
// the matches acknowledged or, for those of unknown outcome, recorded.
func TestLoadTestMatchPluginKilled(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits)
	o := clitest.LoadTestOptions(t, ts, "match=1")
	o.Accounts, o.Concurrency, o.Requests, o.Rate = 40, 4, 90, 30 // three seconds of schedule
	rep := ts.RunKillingPlugin(t, "matches", o)
	op := rep.Op("match")
	if op == nil || op.OK+op.Errors+rep.Unsent != 90 {
		t.Fatalf("ok + errors + unsent != 90: %+v, unsent %d", op, rep.Unsent)
	}
	c := rep.Consistency
	if tot := c.Areas["matches totals"]; !c.OK() || tot == nil || tot.Checked+tot.Left != 40 {
		t.Errorf("consistency: %s %v", c.Summary(), c.Mismatches)
	}
	t.Logf("match: %d ok, failures by kind %v", op.OK, op.Kinds)
}
