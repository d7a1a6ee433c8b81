// Several members in one process: not under the race detector (see
// cluster_test.go); link_test.go runs the links themselves under it.

//go:build !race

package cluster

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// homeAndOther creates account login and returns its home and the other
// of two nodes.
func homeAndOther(t *testing.T, nodes []*testNode, login string) (home, other *testNode) {
	t.Helper()
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: login}); err != nil {
		t.Fatal(err)
	}
	home, other = nodes[0], nodes[1]
	if !home.n.Home(mustLoginID(t, home.sys.DB(), login)) {
		home, other = other, home
	}
	return home, other
}

// TestForwardedRequestsTravelOnTheLink: once the account's grain is live on
// its home, the requests another node forwards to it come on that node's
// link, not through the grain, and are served in order of their account.
func TestForwardedRequestsTravelOnTheLink(t *testing.T) {
	db := memDB(t)
	nodes := startNodes(t, db, "a", "b")
	waitMembers(t, nodes, 2)
	home, via := homeAndOther(t, nodes, "l")
	const requests = 20
	for i := 1; i <= requests; i++ {
		if got, want := forward(t, via, "l"), home.name+" "+strconv.Itoa(i); got != want {
			t.Fatalf("request %d through %s: %q, want %q", i, via.name, got, want)
		}
	}
	// The first request may have met the grain still starting (no_grain,
	// then through the grain); every other came on the link.
	if got := home.n.servedLinked.Load(); got < requests-1 {
		t.Fatalf("%d of %d forwarded requests came on the link", got, requests)
	}
	if !via.n.hasLink(home.n.self, false) {
		t.Fatal("no link from the forwarding node to the home after its requests")
	}
}

// TestAPeerWithoutLinksIsServedThroughTheGrain: a home of an earlier
// version, whose port serves no forwarding streams, gets every request
// through the grain (a rolling upgrade mixes versions), none lost or
// served twice.
func TestAPeerWithoutLinksIsServedThroughTheGrain(t *testing.T) {
	db := memDB(t)
	nodes := startNodesWith(t, db, func(c Config) Config {
		c.noLinks = true
		return c
	}, "a", "b")
	waitMembers(t, nodes, 2)
	home, via := homeAndOther(t, nodes, "old")
	for i := 1; i <= 5; i++ {
		if got, want := forward(t, via, "old"), home.name+" "+strconv.Itoa(i); got != want {
			t.Fatalf("request %d to a home without links: %q, want %q", i, got, want)
		}
	}
	if got := home.n.servedLinked.Load(); got != 0 {
		t.Fatalf("a home without links served %d requests from a link", got)
	}
	if !via.n.isLegacy(home.n.self) {
		t.Fatal("the forwarding node did not note that the home serves no links")
	}
}

// TestALinkedRequestWithoutItsGrainIsNotServed: a request that comes on a
// link while its account's grain is not live on the node (not started, or
// stopping) is answered no_grain, having done nothing.
func TestALinkedRequestWithoutItsGrainIsNotServed(t *testing.T) {
	db := memDB(t)
	tn := startNodes(t, db, "a")[0]
	calls := 0
	tn.n.Attach(tn.sys, func(context.Context, *wire.Request) server.Response {
		calls++
		return server.Response{}
	})
	m := toForward(preAuth("x"), time.Now().Add(time.Minute), "b")
	m.Account, m.RequestId, m.TimeoutNanos = 7, 1, int64(time.Minute)
	var got *clusterpb.Reply
	tn.n.serveLinked(m, func(r *clusterpb.Reply) { got = r })
	if !got.GetNoGrain() || calls != 0 {
		t.Fatalf("no grain: reply %v, served %d times; want no_grain, not served", got, calls)
	}
	stopping := &localGrain{}
	stopping.close()
	tn.n.locals.Store(storage.AccountID(7), stopping)
	got = nil
	tn.n.serveLinked(m, func(r *clusterpb.Reply) { got = r })
	if !got.GetNoGrain() || calls != 0 {
		t.Fatalf("stopping grain: reply %v, served %d times; want no_grain, not served", got, calls)
	}
	live := &localGrain{}
	tn.n.locals.Store(storage.AccountID(7), live)
	got = nil
	tn.n.serveLinked(m, func(r *clusterpb.Reply) { got = r })
	if got.GetNoGrain() || got.GetRefused() != "" || calls != 1 {
		t.Fatalf("live grain: reply %v, served %d times; want served once", got, calls)
	}
}

// TestALinkToAHomeThatWasDroppedEnds: a request in flight on the link to a
// home that stops answering (paused, cut off) is answered "outcome
// unknown" once the forwarding node drops the home, and the link is
// closed: a paused peer's stream would otherwise hold it.
func TestALinkToAHomeThatWasDroppedEnds(t *testing.T) {
	db := memDB(t)
	nodes := startNodesWith(t, db, probeTimeout(time.Second), "a", "b")
	waitMembers(t, nodes, 2)
	home, via := homeAndOther(t, nodes, "d")
	forward(t, via, "d") // the grain is live: the next request goes on the link
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	home.n.Attach(home.sys, func(context.Context, *wire.Request) server.Response {
		close(started)
		<-release
		return server.Response{Body: []byte("late")}
	})
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _, err := via.n.Forward(ctx, preAuth("d"), nil)
		done <- err
	}()
	<-started
	if home.n.servedLinked.Load() == 0 {
		t.Fatal("the request did not come on the link")
	}
	staticOf(home).mute.Store(true)
	if err := <-done; !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("request in flight to a home that was dropped: %v, want %v", err, ErrNoAnswer)
	}
	for deadline := time.Now().Add(time.Minute); via.n.hasLink(home.n.self, false); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the link to a dropped home was still open a minute later")
		}
	}
}

// TestAnUnknownOutcomeIsFinal: a request the home got but did not answer
// is answered "outcome unknown"; a change of it that the home had begun
// but not committed by then (its commit outlasting the wait) committed
// after the answer, whenever the home came back to it: the answer was not
// final. The forwarding node now fences the home before it answers, so
// such a commit is refused.
func TestAnUnknownOutcomeIsFinal(t *testing.T) {
	db := memDB(t)
	nodes := startNodesWith(t, db, probeTimeout(time.Second), "a", "b")
	waitMembers(t, nodes, 2)
	home, via := homeAndOther(t, nodes, "u")
	id := mustLoginID(t, db, "u")
	forward(t, via, "u") // the grain is live: the next request goes on the link
	before, err := db.LoadAccount(id)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	late := make(chan error, 1)
	home.n.Attach(home.sys, func(context.Context, *wire.Request) server.Response {
		close(started)
		<-release
		// The change began before the answer: neither the request's
		// deadline nor its cancellation stops it now.
		_, err := home.sys.Apply(actors.ForwardedContext(context.Background()), id, addTicket{})
		late <- err
		return server.Response{Body: []byte("late")}
	})
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _, err := via.n.Forward(ctx, preAuth("u"), nil)
		done <- err
	}()
	<-started
	staticOf(home).mute.Store(true)
	if err := <-done; !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("request in flight to a home that was dropped: %v, want %v", err, ErrNoAnswer)
	}
	close(release)
	if err := <-late; err == nil {
		t.Error("the home committed the change after the player was told its outcome was unknown")
	}
	if a, err := db.LoadAccount(id); err != nil || a.Tickets != before.Tickets {
		t.Errorf("stored: %d tickets (%v); want %d, none added", a.Tickets, err, before.Tickets)
	}
}

// TestNodesProbeEachOtherOnTheirLinks: the static provider's probes go on
// the links (a link to each peer exists before any request was
// forwarded), and with nodes that serve no links (TestAPeerWithoutLinks...)
// they go through protoactor.
func TestNodesProbeEachOtherOnTheirLinks(t *testing.T) {
	db := memDB(t)
	nodes := startNodes(t, db, "a", "b")
	waitMembers(t, nodes, 2)
	for _, tn := range nodes {
		for _, peer := range tn.n.cfg.Peers {
			if !tn.n.hasLink(peer, true) {
				t.Errorf("%s has no probe link to its peer %s", tn.name, peer)
			}
		}
		if got := tn.n.forwarded.Load(); got != 0 {
			t.Errorf("%s forwarded %d requests", tn.name, got)
		}
	}
}
