// Several members in one process cannot run under the race detector:
// protoactor's remote.Start sets gRPC's process-wide logger
// (grpclog.SetLoggerV2) at every start while the gRPC server of a member
// started before reads it, a race of the library that only exists when one
// process hosts several members. Production runs one member per process;
// the end-to-end test (.ci/cluster-e2e) runs three processes.

//go:build !race

package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/clustertest"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// testNode is one member: a cluster node and its actors over the shared
// database, serving a request by naming itself and adding a ticket.
type testNode struct {
	once sync.Once
	name string
	n    *Node
	sys  *actors.System
}

type addTicket struct{}

func (addTicket) Apply(tx *actors.Tx) (any, error) {
	a := tx.Account()
	a.Tickets++
	return a.Tickets, nil
}

// startNodes starts len(names) members on loopback, each listing the
// others as peers, over one shared database (the role PostgreSQL plays in
// production: the owner epochs live there).
func startNodes(t testing.TB, db *storage.DB, names ...string) []*testNode {
	t.Helper()
	return startNodesWith(t, db, func(c Config) Config { return c }, names...)
}

// startNodesWith is startNodes with each node's Config edited by edit (its
// provider, say).
func startNodesWith(t testing.TB, db *storage.DB, edit func(Config) Config, names ...string) []*testNode {
	t.Helper()
	addrs := clustertest.FreeAddrs(t, len(names))
	gate := make(chan struct{})
	defer close(gate)
	var nodes []*testNode
	for i, name := range names {
		var peers []string
		for j, a := range addrs {
			if j != i {
				peers = append(peers, a)
			}
		}
		n, err := Start(edit(Config{Name: "test", Node: name, Listen: addrs[i], Peers: peers,
			ProbeInterval: 100 * time.Millisecond, ProbeTimeout: 5 * time.Second, ProbeFailures: 3,
			RequestTimeout: 10 * time.Second, probeGate: gate}))
		if err != nil {
			t.Fatal(err)
		}
		sys := actors.New(db, actors.Options{Placement: n, AskTimeout: 10 * time.Second})
		tn := &testNode{name: name, n: n, sys: sys}
		n.Attach(sys, func(ctx context.Context, r *wire.Request) server.Response {
			id, _ := sys.DB().LoginID(r.Form.Get("login"))
			v, err := sys.Apply(ctx, id, addTicket{})
			if err != nil {
				return server.Response{Status: 500, Body: []byte(err.Error())}
			}
			// "echo" comes back after the tickets (large replies).
			return server.Response{Body: fmt.Appendf(nil, "%s %d%s", name, v, r.Form.Get("echo"))}
		})
		nodes = append(nodes, tn)
		t.Cleanup(func() { tn.stop() })
	}
	return nodes
}

func (tn *testNode) stop() {
	tn.once.Do(func() {
		tn.n.Stop()
		tn.sys.Shutdown()
	})
}

// waitMembers waits until every node sees want members (bounded: a minute).
func waitMembers(t testing.TB, nodes []*testNode, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, tn := range nodes {
		for len(tn.n.Members()) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s sees %d members, want %d", tn.name, len(tn.n.Members()), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func preAuth(login string) *wire.Request {
	return &wire.Request{Method: "POST", Path: server.PathClientRequester,
		Query: wire.Values{"f": {server.FuncPreAuth}}, Form: wire.Values(url.Values{"login": {login}})}
}

// A request that Forward leaves to the node it arrived at (handled false:
// the home missed a probe, as a live peer can on a loaded machine, so
// nothing was sent) is sent again once the home answers probes again,
// for a minute at most: the test is about where requests go when the
// membership is settled.
func forward(t *testing.T, tn *testNode, login string) string {
	t.Helper()
	return forwardRoute(t, tn, preAuth(login), nil)
}

// forwardRoute is forward of request r whose route names its account by
// account (server.Route.Account; nil: the host's rule).
func forwardRoute(t *testing.T, tn *testNode, r *wire.Request, account server.AccountOf) string {
	t.Helper()
	login := r.Form.Get("login")
	var resp server.Response
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		rep, handled, err := tn.n.Forward(ctx, r, account)
		cancel()
		if err != nil {
			t.Fatalf("forward %s via %s: %v", login, tn.name, err)
		}
		if handled {
			resp = rep
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("forward %s via %s: its home stayed unreachable for a minute", login, tn.name)
		}
	}
	if resp.Status != 0 {
		t.Fatalf("forward %s via %s: %d %s", login, tn.name, resp.Status, resp.Body)
	}
	return string(resp.Body)
}

func TestRequestsReachTheAccountsHomeAndMoveWhenItLeaves(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(t, db, "a", "b", "c")
	waitMembers(t, nodes, 3)
	homesServeAndTakeOver(t, nodes)
}

// homesServeAndTakeOver checks that every account's requests, through
// whichever of nodes (all members), are served by one node, then stops
// one account's node and checks that the others drop it and serve that
// account with its balance intact.
func homesServeAndTakeOver(t *testing.T, nodes []*testNode) {
	t.Helper()
	ctx := context.Background()
	const accounts = 12
	for i := range accounts {
		if _, err := nodes[0].sys.CreateAccount(ctx, &actors.NewAccount{Login: "p" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Every account's requests, whichever node they arrive at, are served
	// by one node: its home.
	home := map[string]string{}
	count := map[string]int{}
	for i := range accounts {
		login := "p" + strconv.Itoa(i)
		for _, via := range nodes {
			var served string
			var tickets int
			if _, err := fmt.Sscanf(forward(t, via, login), "%s %d", &served, &tickets); err != nil {
				t.Fatal(err)
			}
			if h, ok := home[login]; ok && h != served {
				t.Fatalf("%s served by %s and %s", login, h, served)
			}
			home[login] = served
			count[login]++
			if tickets != count[login] {
				t.Fatalf("%s: %d tickets after %d requests", login, tickets, count[login])
			}
		}
	}
	// Stop the home of p0: the others drop it, and p0 is served again by
	// one of them, its balance intact.
	var gone *testNode
	var rest []*testNode
	for _, tn := range nodes {
		if tn.name == home["p0"] {
			gone = tn
		} else {
			rest = append(rest, tn)
		}
	}
	gone.stop()
	waitMembers(t, rest, len(rest))
	for _, via := range rest {
		var served string
		var tickets int
		if _, err := fmt.Sscanf(forward(t, via, "p0"), "%s %d", &served, &tickets); err != nil {
			t.Fatal(err)
		}
		if served == gone.name {
			t.Fatalf("p0 still served by the stopped node %s", served)
		}
		count["p0"]++
		if tickets != count["p0"] {
			t.Fatalf("p0: %d tickets after %d requests: a write was lost or doubled", tickets, count["p0"])
		}
	}
}

// TestARouteNamesItsRequestsAccount: a request the host's rule names no
// account for (a path of an area, no cookie) is served where it arrives,
// unless its route names the account (server.Route.Account): then it is
// served by that account's home, whichever node it arrives at, and no
// node changes the account in a transient activation. A route's hook that
// names none leaves the host's rule in force (pre_auth's login). A change
// made on a node that is not the account's home is counted there
// (Stats.TransientChanges): the count that shows requests missing their
// home.
func TestARouteNamesItsRequestsAccount(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(t, db, "a", "b", "c")
	waitMembers(t, nodes, 3)
	ctx := context.Background()
	const accounts = 6
	for i := range accounts {
		if _, err := nodes[0].sys.CreateAccount(ctx, &actors.NewAccount{Login: "r" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// The area's own field names the account ("host"; the test nodes
	// serve the account of "login").
	byHost := func(r *wire.Request) (storage.AccountID, bool) {
		id, err := db.LoginID(r.Form.Get("host"))
		return id, err == nil
	}
	none := func(*wire.Request) (storage.AccountID, bool) { return 0, false }
	areaRequest := func(login string) *wire.Request {
		return &wire.Request{Method: "POST", Path: "/area", Form: wire.Values{"login": {login}, "host": {login}}}
	}
	transient := func() (sum int64) {
		for _, tn := range nodes {
			sum += tn.n.Stats().TransientChanges
		}
		return sum
	}
	before := transient()
	for i := range accounts {
		login := "r" + strconv.Itoa(i)
		served := ""
		for k, via := range nodes {
			var at string
			var tickets int
			if _, err := fmt.Sscanf(forwardRoute(t, via, areaRequest(login), byHost), "%s %d", &at, &tickets); err != nil {
				t.Fatal(err)
			}
			if served != "" && at != served {
				t.Fatalf("%s served by %s and %s", login, served, at)
			}
			served = at
			if tickets != k+1 {
				t.Fatalf("%s: %d tickets after %d requests", login, tickets, k+1)
			}
			if !nodeNamed(nodes, at).sys.AtHome(mustLoginID(t, db, login)) {
				t.Fatalf("%s served by %s, not its home", login, at)
			}
		}
		// pre_auth's login still names it when the route's hook names none.
		if _, err := fmt.Sscanf(forwardRoute(t, nodes[i%len(nodes)], preAuth(login), none), "%s", new(string)); err != nil {
			t.Fatal(err)
		}
	}
	if d := transient() - before; d != 0 {
		t.Errorf("%d changes made in transient activations; want every one at its account's home", d)
	}
	// Without the hook the host's rule names no account: served here.
	for _, via := range nodes {
		if _, handled, err := via.n.Forward(ctx, areaRequest("r0"), nil); handled || err != nil {
			t.Fatalf("a request naming no account was forwarded by %s: %v", via.name, err)
		}
	}
	// A change on a node that is not the account's home is counted there.
	id := mustLoginID(t, db, "r0")
	for _, tn := range nodes {
		if tn.sys.AtHome(id) {
			continue
		}
		was := tn.n.Stats().TransientChanges
		if _, err := tn.sys.Apply(ctx, id, addTicket{}); err != nil {
			t.Fatal(err)
		}
		if got := tn.n.Stats().TransientChanges - was; got != 1 {
			t.Errorf("%s: %d transient changes counted for one change of an account homed elsewhere", tn.name, got)
		}
		break
	}
}

func nodeNamed(nodes []*testNode, name string) *testNode {
	for _, tn := range nodes {
		if tn.name == name {
			return tn
		}
	}
	return nil
}

func mustLoginID(t *testing.T, db *storage.DB, login string) storage.AccountID {
	t.Helper()
	id, err := db.LoginID(login)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestConcurrentRequestsThroughEveryNode sends one account's requests
// through all nodes at once: every acknowledged ticket is counted once.
func TestConcurrentRequestsThroughEveryNode(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(t, db, "a", "b", "c")
	waitMembers(t, nodes, 3)
	if _, err := nodes[1].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "hot"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const each = 20
	for _, tn := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				forward(t, tn, "hot")
			}
		}()
	}
	wg.Wait()
	id, err := db.LoginID("hot")
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.LoadAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tickets != int64(each*len(nodes)) {
		t.Fatalf("%d tickets stored after %d acknowledged requests", a.Tickets, each*len(nodes))
	}
}

// TestALeavingNodeRefusesForwardedRequests: once a node stops (a rolling
// upgrade), a request another node forwards to it is refused with nothing
// done, so that the forwarding node serves it elsewhere, rather than
// served by a node whose plugins and actors are going away.
func TestALeavingNodeRefusesForwardedRequests(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(t, db, "a")
	tn := nodes[0]
	calls := 0
	tn.n.Attach(tn.sys, func(context.Context, *wire.Request) server.Response {
		calls++
		return server.Response{Body: []byte("served")}
	})
	tn.stop()
	var got *clusterpb.Reply
	tn.n.serveForward(toForward(preAuth("p"), time.Now().Add(time.Minute), "b"), func(r *clusterpb.Reply) { got = r })
	if got.GetRefused() == "" || calls != 0 {
		t.Fatalf("a stopped node answered a forwarded request %q (refused %q), serving it %d times", got.GetBody(), got.GetRefused(), calls)
	}
}

// TestATransientChangeElsewhereRefreshesTheHome: a change made on a node
// that is not the account's home (an operator's command there) runs in a
// transient activation; the home's live actor, which still holds the
// state from before, is told to start afresh, so that its reads show the
// change (without it they showed the old state until the actor's next
// write or passivation).
func TestATransientChangeElsewhereRefreshesTheHome(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodes(t, db, "a", "b")
	waitMembers(t, nodes, 2)
	ctx := context.Background()
	acct, err := nodes[0].sys.CreateAccount(ctx, &actors.NewAccount{Login: "p"})
	if err != nil {
		t.Fatal(err)
	}
	var served string
	var tickets int
	if _, err := fmt.Sscanf(forward(t, nodes[0], "p"), "%s %d", &served, &tickets); err != nil {
		t.Fatal(err)
	}
	home, other := nodes[0], nodes[1]
	if served == other.name {
		home, other = other, home
	}
	if _, err := other.sys.Apply(ctx, acct.ID, addTicket{}); err != nil { // transient: other is not the home
		t.Fatal(err)
	}
	stored, err := db.LoadAccount(acct.ID)
	if err != nil || stored.Tickets != 2 {
		t.Fatalf("stored after two changes: %v, %v", stored, err)
	}
	// The home is told asynchronously: wait for it, a minute at most.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		a, err := home.sys.Account(ctx, acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a.Tickets == stored.Tickets {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the home still reads %d tickets, the store holds %d", a.Tickets, stored.Tickets)
		}
	}
}

// TestALargeRequestReachesItsHome: a forwarded request travels between
// nodes as one gRPC message, and gRPC refuses a message past 4 MiB by
// default, breaking the connection with every request in flight on it.
// A request of several MiB (under a large server.body_limit) must still
// reach its account's home, and so must several at once (protoactor
// batched those into one message), on a link and through the grain (a
// home of an earlier version); and so must a reply of several MiB come
// back.
func TestALargeRequestReachesItsHome(t *testing.T) {
	for _, links := range []bool{true, false} {
		t.Run(map[bool]string{true: "link", false: "grain"}[links], func(t *testing.T) {
			db := memDB(t)
			nodes := startNodesWith(t, db, func(c Config) Config { c.BodyLimit, c.noLinks = 6<<20, !links; return c }, "a", "b")
			waitMembers(t, nodes, 2)
			home, via := homeAndOther(t, nodes, "p")
			forward(t, via, "p") // the grain live at the home: the link serves what follows
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					r := preAuth("p")
					if i == 0 {
						r.Form["echo"] = []string{strings.Repeat("e", 5<<20)}
					} else {
						r.Form["big"] = []string{strings.Repeat("x", 6<<20)}
					}
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					resp, handled, err := via.n.Forward(ctx, r, nil)
					if err != nil || !handled || resp.Status != 0 {
						t.Errorf("request %d of several MiB via %s to %s: handled %v, %v, %d %.200s", i, via.name, home.name, handled, err, resp.Status, resp.Body)
					} else if want := r.Form.Get("echo"); !strings.HasSuffix(string(resp.Body), want) {
						t.Errorf("request %d via %s to %s: a reply of %d bytes, want one ending in %d bytes echoed", i, via.name, home.name, len(resp.Body), len(want))
					}
				})
			}
			wg.Wait()
			if got := home.n.servedLinked.Load(); (got > 0) != links {
				t.Errorf("the home served %d requests from a link (links: %v)", got, links)
			}
		})
	}
}

// TestARequestTooLargeForThePortIsNotSent: a request larger than the
// cluster port carries (nodes whose server.body_limit differ let one
// through) would end the link with every request in flight on it; it is
// answered as too large (wire.ErrBodyTooLarge, which each area answers in
// its own shape) and never reaches its home.
func TestARequestTooLargeForThePortIsNotSent(t *testing.T) {
	db := memDB(t)
	nodes := startNodesWith(t, db, func(c Config) Config { c.BodyLimit = 64 << 10; return c }, "a", "b")
	waitMembers(t, nodes, 2)
	home, via := homeAndOther(t, nodes, "q")
	forward(t, via, "q") // the grain live at the home
	served := home.n.Stats().ServedForOthers
	r := preAuth("q")
	r.Form["big"] = []string{strings.Repeat("x", int(via.n.cfg.maxMessage()))}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, handled, err := via.n.Forward(ctx, r, nil); !handled || !errors.Is(err, wire.ErrBodyTooLarge) {
		t.Fatalf("a request larger than the port carries: handled %v, %v; want %v", handled, err, wire.ErrBodyTooLarge)
	}
	if got := home.n.Stats().ServedForOthers; got != served {
		t.Fatalf("the home served %d forwarded requests, %d before: the request reached it", got, served)
	}
	if got, want := forward(t, via, "q"), home.name+" 2"; got != want {
		t.Fatalf("the next request: %q, want %q (the link still serves)", got, want)
	}
}

// TestARequestAtItsHomeIsServedThere: a request that reaches its
// account's home while the grain is live there is served directly
// (serveAtHome), not sent through the grain; once the grain has stopped,
// the next request takes the grain's path, which starts it again, and the
// requests after that are served directly again.
func TestARequestAtItsHomeIsServedThere(t *testing.T) {
	db := memDB(t)
	nodes := startNodes(t, db, "a", "b")
	waitMembers(t, nodes, 2)
	acct, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "h"})
	if err != nil {
		t.Fatal(err)
	}
	var served string
	var tickets int
	if _, err := fmt.Sscanf(forward(t, nodes[0], "h"), "%s %d", &served, &tickets); err != nil {
		t.Fatal(err)
	}
	home, other := nodeNamed(nodes, served), nodes[0]
	if other == home {
		other = nodes[1]
	}
	want := tickets
	// direct: whether the request is served without the grain. Either
	// way it counts as forwarded where it arrived and as served by the
	// home (the metrics' figures).
	check := func(via *testNode, direct bool) {
		t.Helper()
		before, homeBefore := via.n.Stats(), home.n.Stats()
		want++
		if got := forward(t, via, "h"); got != fmt.Sprintf("%s %d", home.name, want) {
			t.Fatalf("via %s: %q, want %s %d", via.name, got, home.name, want)
		}
		after, homeAfter := via.n.Stats(), home.n.Stats()
		// (Forwarded counts each try: a try that finds a stopped grain is
		// sent again, served once.)
		if f, s := after.Forwarded-before.Forwarded, homeAfter.ServedForOthers-homeBefore.ServedForOthers; f < 1 || s != 1 {
			t.Fatalf("via %s: counted forwarded %d times and served by the home %d times; want at least 1 and 1", via.name, f, s)
		}
		if h := homeAfter.ServedAtHome - homeBefore.ServedAtHome; h != 0 && !direct || h != 1 && direct {
			t.Fatalf("via %s: %d served directly at the home; want direct %v", via.name, h, direct)
		}
	}
	check(home, true)
	check(other, false)
	check(home, true)

	// Stop the grain: direct service ends with it.
	ci := identityOf(acct.ID)
	pid := home.n.grainPID(ci, home.n.self, time.Now().Add(time.Minute))
	if pid == nil {
		t.Fatal("the home has no grain of the account")
	}
	if err := home.n.as.Root.PoisonFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	if _, live := home.n.locals.Load(acct.ID); live {
		t.Fatal("a stopped grain is still served directly")
	}
	check(home, false) // through a new grain
	check(home, true)
}

// TestALocalGrainRetiresOnlyWhenIdle: a grain whose requests are served
// directly stops for idleness only when none runs and none started within
// the idle time, and none starts once it is closed.
func TestALocalGrainRetiresOnlyWhenIdle(t *testing.T) {
	const idle = time.Minute
	t0 := time.Unix(1_000_000, 0)
	var l localGrain
	if !l.enter(t0) {
		t.Fatal("a new grain refused a request")
	}
	if l.retire(t0.Add(2*idle), idle) {
		t.Fatal("retired while a request runs")
	}
	l.exit()
	if l.retire(t0.Add(idle/2), idle) {
		t.Fatal("retired within the idle time of the last request")
	}
	if !l.retire(t0.Add(idle), idle) {
		t.Fatal("not retired after the idle time")
	}
	if l.enter(t0.Add(idle)) {
		t.Fatal("a retired grain admitted a request")
	}
	var m localGrain
	m.enter(t0)
	m.close()
	if m.enter(t0) {
		t.Fatal("a closed grain admitted a request")
	}
	m.exit()
	if m.retire(t0.Add(2*idle), idle) {
		t.Fatal("a closed grain retired again")
	}
}
