package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// These tests run a link between two Nodes without protoactor (which
// cannot host several members in one process under the race detector, see
// cluster_test.go), so that the link's concurrency runs under -race in CI.

// linkPair returns a forwarding node and the address of a home node
// whose cluster port serves its forwarding streams (or, legacy, none),
// with account 1's grain live there and serve as its handler.
func linkPair(t *testing.T, serve ServeLocal, legacy bool) (*Node, string) {
	t.Helper()
	home := &Node{cfg: Config{Node: "home", RequestTimeout: time.Minute}, log: slog.New(slog.DiscardHandler),
		prov: answering{}, workers: newWorkers()}
	home.served.Store(&serve)
	home.locals.Store(storage.AccountID(1), &localGrain{})
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(home.cfg.maxMessage())}
	if !legacy {
		opts = append(opts, grpc.UnknownServiceHandler(home.serveStream))
	}
	addr := servePort(t, opts...)
	return viaNode(t, addr), addr
}

// servePort serves a gRPC server with opts on a loopback port until the
// test ends, and returns its address.
func servePort(t *testing.T, opts ...grpc.ServerOption) string {
	t.Helper()
	srv := grpc.NewServer(opts...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// viaNode is a forwarding node (no protoactor) whose only member is addr,
// its links closed when the test ends.
func viaNode(t *testing.T, addr string) *Node {
	via := &Node{cfg: Config{Node: "via", ProbeInterval: 100 * time.Millisecond, ProbeTimeout: 5 * time.Second},
		log: slog.New(slog.DiscardHandler), prov: noneDeparted{}, dial: []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}}
	view := []Member{{Address: addr}}
	via.view.Store(&view)
	t.Cleanup(via.closeLinks)
	return via
}

func linkedRequest(i int) *clusterpb.Forward {
	r := preAuthRequest(fmt.Sprint(i))
	m := toForward(r, time.Now().Add(time.Minute), "via")
	m.Account, m.TimeoutNanos = 1, int64(time.Minute)
	return m
}

func preAuthRequest(login string) *wire.Request {
	return &wire.Request{Method: "POST", Path: server.PathClientRequester,
		Query: wire.Values{"f": {server.FuncPreAuth}}, Form: wire.Values{"login": {login}}}
}

// TestALinkCarriesConcurrentRequests: requests sent at once on one link
// each get their own reply.
func TestALinkCarriesConcurrentRequests(t *testing.T) {
	echo := ServeLocal(func(_ context.Context, r *wire.Request) server.Response {
		return server.Response{Body: []byte(r.Form.Get("login"))}
	})
	via, addr := linkPair(t, echo, false)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 25 {
				i := g*100 + k
				l, err := via.linkTo(addr, false)
				if err != nil || l == nil {
					errs <- fmt.Errorf("link: %v %v", l, err)
					return
				}
				m := linkedRequest(i)
				m.RequestId = via.requestIDs.Add(1)
				rep, err := via.forwardOn(l, m, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
				if err != nil || string(rep.GetBody()) != fmt.Sprint(i) {
					errs <- fmt.Errorf("request %d: %q, %v", i, rep.GetBody(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestALinkThatEndsAnswersItsRequestsInFlight: a request in flight when its
// link ends may have been served (outcome unknown: errLinkLost); the next
// request opens a new link; after closeLinks none opens.
func TestALinkThatEndsAnswersItsRequestsInFlight(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	serve := ServeLocal(func(_ context.Context, r *wire.Request) server.Response {
		if r.Form.Get("login") == "1" {
			started <- struct{}{}
			<-release
		}
		return server.Response{Body: []byte("ok")}
	})
	via, addr := linkPair(t, serve, false)
	defer close(release)
	l, err := via.linkTo(addr, false)
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	done := make(chan error, 1)
	go func() {
		m := linkedRequest(1)
		m.RequestId = via.requestIDs.Add(1)
		_, err := via.forwardOn(l, m, time.Now().Add(time.Minute), time.Now().Add(time.Minute))
		done <- err
	}()
	<-started
	via.dropLink(l, errLinkLost)
	if err := <-done; !errors.Is(err, errLinkLost) {
		t.Fatalf("request in flight on a link that ended: %v, want %v", err, errLinkLost)
	}
	m := linkedRequest(2)
	m.RequestId = via.requestIDs.Add(1)
	if _, err := l.send(&clusterpb.LinkUp{Msg: &clusterpb.LinkUp_Forward{Forward: m}}, m.RequestId, time.Now().Add(time.Minute), 0); !errors.Is(err, errNotSent) {
		t.Fatalf("a request on an ended link: %v, want %v", err, errNotSent)
	}
	l2, err := via.linkTo(addr, false)
	if err != nil || l2 == nil || l2 == l {
		t.Fatalf("after the link ended: %p %v, want a new link", l2, err)
	}
	if rep, err := via.forwardOn(l2, m, time.Now().Add(time.Minute), time.Now().Add(time.Minute)); err != nil || string(rep.GetBody()) != "ok" {
		t.Fatalf("on the new link: %q %v", rep.GetBody(), err)
	}
	via.closeLinks()
	if l3, err := via.linkTo(addr, false); l3 != nil || err != nil {
		t.Fatalf("after closeLinks: %p %v, want no link", l3, err)
	}
}

// TestALinkToAnEarlierVersionIsNotUsed: a peer that serves no forwarding
// streams answers Unimplemented without reading the request
// (errUnsupported: the request goes through the grain), and no link to it
// is opened again.
func TestALinkToAnEarlierVersionIsNotUsed(t *testing.T) {
	served := 0
	serve := ServeLocal(func(context.Context, *wire.Request) server.Response {
		served++
		return server.Response{}
	})
	via, addr := linkPair(t, serve, true)
	l, err := via.linkTo(addr, false)
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	m := linkedRequest(1)
	m.RequestId = via.requestIDs.Add(1)
	if _, err := via.forwardOn(l, m, time.Now().Add(time.Minute), time.Now().Add(time.Minute)); !errors.Is(err, errUnsupported) {
		t.Fatalf("a request to an earlier version: %v, want %v", err, errUnsupported)
	}
	if l, err := via.linkTo(addr, false); l != nil || err != nil {
		t.Fatalf("a second link to an earlier version: %p %v, want none", l, err)
	}
	if !via.isLegacy(addr) {
		t.Fatal("the earlier version is not noted")
	}
	via.membersChanged(nil)
	if via.isLegacy(addr) {
		t.Fatal("an earlier version that left is still noted (it may come back upgraded)")
	}
	if served != 0 {
		t.Fatalf("the earlier version served %d requests", served)
	}
}

// noneDeparted is a membership in which no peer left gracefully.
type noneDeparted struct{ membership }

func (noneDeparted) departed(string) bool { return false }

// hasLink reports whether n has a link to addr for forwarded requests
// (probe false) or for probes.
func (n *Node) hasLink(addr string, probe bool) bool {
	n.links.mu.Lock()
	defer n.links.mu.Unlock()
	return n.links.byAddr[linkKey{addr, probe}] != nil
}

func (n *Node) isLegacy(addr string) bool {
	n.links.mu.Lock()
	defer n.links.mu.Unlock()
	_, ok := n.links.legacy[addr]
	return ok
}

// answering is a membership whose node serves and answers every probe of
// cluster "test" (a muted one: none).
type answering struct{ alwaysServing }

func (answering) pong(ping *clusterpb.Ping) *clusterpb.Pong {
	if ping.GetCluster() != "test" {
		return nil
	}
	return &clusterpb.Pong{Cluster: "test", MemberId: "home-id"}
}

// TestAProbeTravelsOnTheLink: a probe on the link gets the peer's answer;
// one the peer does not answer is a miss at its deadline; one to a peer
// of an earlier version is left to protoactor (handled false).
func TestAProbeTravelsOnTheLink(t *testing.T) {
	none := ServeLocal(func(context.Context, *wire.Request) server.Response { return server.Response{} })
	via, addr := linkPair(t, none, false)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pong, handled := via.probeOn(addr, &clusterpb.Ping{Cluster: "test"}, time.Now().Add(time.Minute))
			if !handled || pong.GetMemberId() != "home-id" {
				t.Errorf("a probe on the link: %v, handled %v", pong, handled)
			}
		}()
	}
	wg.Wait()
	if pong, handled := via.probeOn(addr, &clusterpb.Ping{Cluster: "muted"}, time.Now().Add(50*time.Millisecond)); pong != nil || !handled {
		t.Fatalf("an unanswered probe: %v, handled %v; want a miss", pong, handled)
	}
	old, oldAddr := linkPair(t, none, true)
	if pong, handled := old.probeOn(oldAddr, &clusterpb.Ping{Cluster: "test"}, time.Now().Add(time.Minute)); pong != nil || handled {
		t.Fatalf("a probe to an earlier version: %v, handled %v; want it left to protoactor", pong, handled)
	}
	if _, handled := old.probeOn(oldAddr, &clusterpb.Ping{Cluster: "test"}, time.Now().Add(time.Minute)); handled {
		t.Fatal("a second probe to an earlier version went on a link")
	}
}

// TestAWriteThatCannotFinishEndsTheLink: a peer that stops reading
// (paused, cut off) cannot hold a write past its deadline: the link ends
// (the write was not sent, the requests in flight on it may have been
// served), and probes, on a link of their own, are not held behind it.
// Before, the write waited until the peer read again, with the link's
// lock held, so every later request and probe to that peer waited too.
func TestAWriteThatCannotFinishEndsTheLink(t *testing.T) {
	// Fixed 64 KiB windows: gRPC's dynamic window could otherwise grow
	// past both messages below, which then would not wait.
	addr := servePort(t, grpc.InitialWindowSize(1<<16), grpc.InitialConnWindowSize(1<<16),
		grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			<-ss.Context().Done() // reads nothing
			return nil
		}))
	via := viaNode(t, addr)
	l, err := via.linkTo(addr, false)
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	big := func(id uint64) *clusterpb.LinkUp {
		m := linkedRequest(int(id))
		m.RequestId = id
		m.Files = []*clusterpb.File{{Part: "f", Data: make([]byte, 1<<20)}}
		return &clusterpb.LinkUp{Msg: &clusterpb.LinkUp_Forward{Forward: m}}
	}
	first, err := l.send(big(1), 1, time.Now().Add(time.Minute), 0)
	if err != nil {
		t.Fatal("the first write:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.send(big(2), 2, time.Now().Add(300*time.Millisecond), 200*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, errNotSent) {
			t.Fatalf("a write the peer does not read: %v, want %v", err, errNotSent)
		}
	case <-time.After(time.Minute):
		t.Fatal("a write the peer does not read was still waiting a minute after its deadline")
	}
	if _, ok := <-first; ok {
		t.Fatal("the request in flight on the ended link got an answer")
	}
	if !errors.Is(l.linkErr(), errLinkLost) {
		t.Fatalf("the link ended with %v, want %v", l.linkErr(), errLinkLost)
	}
	// A write whose deadline passed is not written, and ends no link.
	l2, err := via.linkTo(addr, false)
	if err != nil || l2 == nil {
		t.Fatal(l2, err)
	}
	if _, err := l2.send(big(3), 3, time.Now().Add(-time.Millisecond), 0); !errors.Is(err, errNotSent) {
		t.Fatalf("a write past its deadline: %v, want %v", err, errNotSent)
	}
	if l2.linkErr() != nil {
		t.Fatalf("a write past its deadline ended its link: %v", l2.linkErr())
	}
	if pong, handled := via.probeOn(addr, &clusterpb.Ping{Cluster: "test"}, time.Now().Add(200*time.Millisecond)); pong != nil || !handled {
		t.Fatalf("a probe to the peer that reads nothing: %v, handled %v; want a miss", pong, handled)
	}
}

// TestTheStreamsOfAVanishedPeerEnd: a forwarding node that vanished
// without closing its connections (its machine died or was cut off: no
// FIN comes, and nothing it sends arrives) is dropped from the topology
// by its probes, which ends only the home's own links to it. The streams
// it opened to the home end by the cluster port's keepalive (here
// shortened): before, they were held until TCP gave up, and with them
// the home's workers once the replies filled the flow window.
func TestTheStreamsOfAVanishedPeerEnd(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	serve := ServeLocal(func(context.Context, *wire.Request) server.Response {
		started <- struct{}{}
		<-release
		return server.Response{Body: []byte("ok")}
	})
	cfg := Config{Node: "home", Listen: "127.0.0.1:0", RequestTimeout: time.Minute,
		keepalive: &keepalive.ServerParameters{Time: time.Second, Timeout: 2 * time.Second}}
	home := &Node{cfg: cfg, log: slog.New(slog.DiscardHandler), prov: answering{}, workers: newWorkers()}
	home.served.Store(&serve)
	home.locals.Store(storage.AccountID(1), &localGrain{})
	ended := make(chan struct{})
	opts, _, err := transport(cfg, home.log, "127.0.0.1", "127.0.0.1", func(srv any, ss grpc.ServerStream) error {
		defer close(ended)
		return home.serveStream(srv, ss)
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := servePort(t, remote.Configure("127.0.0.1", 0, opts...).ServerOptions...)
	proxy := freezingProxy(t, addr)
	via := viaNode(t, proxy.addr)

	l, err := via.linkTo(proxy.addr, false)
	if err != nil || l == nil {
		t.Fatal(l, err)
	}
	m := linkedRequest(1)
	m.RequestId = via.requestIDs.Add(1)
	go func() { _, _ = via.forwardOn(l, m, time.Now().Add(time.Minute), time.Now().Add(time.Minute)) }()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the request did not reach the home")
	}
	proxy.frozen.Store(true) // the forwarding node vanishes
	close(release)
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the stream of a peer that vanished was still served a minute later")
	}
	select {
	case <-proxy.homeClosed:
	case <-time.After(time.Minute):
		t.Fatal("the home did not close the connection of a peer that vanished")
	}
}

// proxy is a TCP proxy to one address for one connection; frozen, it
// passes nothing either way and keeps both connections open.
type proxy struct {
	addr   string
	frozen atomic.Bool
	// homeClosed is closed once the connection to the address ended.
	homeClosed chan struct{}
}

func freezingProxy(t *testing.T, to string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), homeClosed: make(chan struct{})}
	go func() {
		defer ln.Close()
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", to)
		if err != nil {
			in.Close()
			return
		}
		t.Cleanup(func() { in.Close(); out.Close() })
		pass := func(dst, src net.Conn) error {
			buf := make([]byte, 32<<10)
			for {
				k, err := src.Read(buf)
				if err != nil {
					return err
				}
				if !p.frozen.Load() {
					if _, err := dst.Write(buf[:k]); err != nil {
						return err
					}
				}
			}
		}
		go func() { _ = pass(out, in) }()
		_ = pass(in, out)
		close(p.homeClosed)
	}()
	return p
}
