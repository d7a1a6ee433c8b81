package matchsim_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
// manager on node 0: the match is recorded and each player's totals
// count it once, read through two nodes; then the load tester's match
// operation through all three nodes passes its check. Skipped without
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
	for _, ch := range children {
		ch.stop()
	}
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
