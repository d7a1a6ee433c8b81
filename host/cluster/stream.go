package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/storage"
)

// Forwarded requests and their replies, and the static provider's probes,
// travel on gRPC streams of this package's own from each node to each peer
// (links: one for requests and one for probes per peer, so that a probe
// never waits behind an upload), on the cluster port beside protoactor's
// remoting service, with its mutual TLS and message limit. protoactor
// still finds (and activates) the account's grain (Node.grainPID) and
// carries the rest: gossip, cancellations, reactivations, a graceful
// stop's Leave and handover, the grain's start.
//
// Through the grain, a request and its reply each passed through
// protoactor's endpoint writer (a goroutine started per batch, whose stack
// grows by copying in the serialization), its endpoint reader, the grain's
// mailbox and a future: about half of the CPU a forwarded request cost
// both nodes (issue 35 item 7, BenchmarkForward). On a link the forwarding
// goroutine writes the request itself, the home's stream reader hands it to
// a reused goroutine (workers), which serves it as a request that arrived
// at the home while the grain is live (localGrain, as serveAtHome) and
// writes the reply, and the forwarding node's link reader hands the reply
// to the waiting request. A write never waits past its request's (or
// probe's) deadline: one the peer does not take by then ends the link.
//
// What the grain's path guaranteed holds on a link:
//   - the grain's start precedes the account's use on its node: the home
//     serves a request on a link only while the account's grain is live
//     there (registered by its start, see grain); otherwise it answers
//     no_grain, having done nothing, and the request goes through the
//     grain, which activates it or is found gone;
//   - deadlines, cancellation (a Cancel still goes to the grain, and
//     cancels, keyed by forwarding node and request id, find the request
//     on either path), refusal by a leaving node, the in-flight requests
//     a graceful stop waits for: the same serveForward serves both paths;
//   - a request written to a link whose stream then ends, or whose home
//     leaves the forwarding node's topology without a graceful stop, may
//     have been served: the player gets "outcome unknown" (ErrNoAnswer);
//     a request that could not be written was sent nowhere, and is sent
//     again (or served here, see Forward);
//   - a peer of an earlier version, which does not serve the stream,
//     answers it Unimplemented without reading a request: those requests
//     go through the grain, and so do later ones to that peer (rolling
//     upgrades).

// forwardMethod is the gRPC method of a forwarding stream (client: Forward
// messages; server: Reply messages with their request ids). protoactor
// owns the cluster port's gRPC server, so the method is served by the
// server's unknown-service handler (transport) rather than registered.
const forwardMethod = "/honmaster.cluster.v1.Forwarding/Requests"

var forwardStream = &grpc.StreamDesc{StreamName: "Requests", ServerStreams: true, ClientStreams: true}

// Outcomes of a request sent on a link, beside its Reply.
var (
	// errNotSent: the request could not be written to the link (or the link
	// could not be opened): nothing reached the home.
	errNotSent = errors.New("not sent")
	// errLinkLost: the link ended after the request was written: the home
	// may have served it.
	errLinkLost = errors.New("the link to the account's node ended")
	// errUnsupported: the peer does not serve forwarding streams (an
	// earlier version): it read no request.
	errUnsupported = errors.New("the peer does not serve forwarding streams")
)

// link is one of this node's streams to a peer: each peer gets one for
// forwarded requests and one for probes (linkKey), so that a probe never
// waits behind a large upload or a blocked write of a forward.
type link struct {
	key     linkKey
	addr    string
	drop    func(error)   // ends the link (Node.dropLink)
	done    chan struct{} // closed when the link ends (err set)
	ready   chan struct{} // closed once opened, or openErr set
	openErr error
	conn    *grpc.ClientConn
	cancel  context.CancelFunc
	stream  grpc.ClientStream

	wsem    chan struct{} // one slot: serializes the writes to stream
	mu      sync.Mutex    // guards what follows
	pending map[uint64]chan *clusterpb.LinkDown
	err     error // set when the stream ended; pending is then empty for good
}

// links are this node's links, by peer address. A link removes itself when
// its stream ends; Node.membersChanged closes the links of members that
// left without a graceful stop, Stop every link.
type links struct {
	mu     sync.Mutex
	byAddr map[linkKey]*link
	// legacy holds the peers that answered Unimplemented (an earlier
	// version), until when requests and probes to them go through
	// protoactor without trying a link (legacyFor).
	legacy map[string]time.Time
	// members are the addresses of the members of the last topology.
	members map[string]bool
	closed  bool
}

// linkKey names a link: its peer's address, and whether it carries
// probes or forwarded requests.
type linkKey struct {
	addr  string
	probe bool
}

// legacyFor is how long a peer that answered Unimplemented is taken for an
// earlier version: one upgraded in place (restarted at the same address
// without leaving the topology for long) gets links again after it.
const legacyFor = time.Minute

// linkTo returns the link to addr (forwarded requests, or probes), opening
// it when there is none (one opening per link; the others wait for it);
// nil when the peer serves no links, or this node is stopping. An error:
// the link could not be opened, nothing was sent.
func (n *Node) linkTo(addr string, probe bool) (*link, error) {
	ls := &n.links
	key := linkKey{addr, probe}
	ls.mu.Lock()
	if until, ok := ls.legacy[addr]; ls.closed || ok && time.Now().Before(until) {
		ls.mu.Unlock()
		return nil, nil
	}
	l := ls.byAddr[key]
	if l != nil {
		ls.mu.Unlock()
		<-l.ready
		if l.openErr != nil {
			return nil, l.openErr
		}
		return l, nil
	}
	l = &link{key: key, addr: addr, done: make(chan struct{}), ready: make(chan struct{}), wsem: make(chan struct{}, 1),
		pending: map[uint64]chan *clusterpb.LinkDown{}}
	l.drop = func(why error) { n.dropLink(l, why) }
	if ls.byAddr == nil {
		ls.byAddr = map[linkKey]*link{}
	}
	ls.byAddr[key] = l
	ls.mu.Unlock()
	if l.openErr = n.openLink(l); l.openErr != nil {
		ls.mu.Lock()
		if ls.byAddr[key] == l {
			delete(ls.byAddr, key)
		}
		ls.mu.Unlock()
		close(l.ready)
		return nil, l.openErr
	}
	close(l.ready)
	go n.readLink(l)
	return l, nil
}

// openLink dials l's peer and opens the stream, within ProbeTimeout (the
// peer answered the grain's lookup just before, so it is up).
func (n *Node) openLink(l *link) error {
	conn, err := grpc.NewClient(l.addr, n.dial...)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	timeout := time.AfterFunc(n.cfg.ProbeTimeout, cancel)
	stream, err := conn.NewStream(ctx, forwardStream, forwardMethod,
		grpc.MaxCallRecvMsgSize(n.cfg.maxMessage()), grpc.MaxCallSendMsgSize(n.cfg.maxMessage()))
	if !timeout.Stop() && err == nil {
		// Cancelled as it opened: the stream is of no use.
		err = fmt.Errorf("opening the link to %s took longer than the probe timeout", l.addr)
	}
	if err != nil {
		cancel()
		_ = conn.Close()
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		// Dropped while it opened (its peer left, or this node stops).
		cancel()
		_ = conn.Close()
		return l.err
	}
	l.conn, l.cancel, l.stream = conn, cancel, stream
	return nil
}

// readLink hands each reply on l to its request, until the stream ends.
func (n *Node) readLink(l *link) {
	for {
		down := new(clusterpb.LinkDown)
		if err := l.stream.RecvMsg(down); err != nil {
			if status.Code(err) == codes.Unimplemented {
				err = errUnsupported
				n.links.mu.Lock()
				if n.links.legacy == nil {
					n.links.legacy = map[string]time.Time{}
				}
				n.links.legacy[l.addr] = time.Now().Add(legacyFor)
				n.links.mu.Unlock()
			} else {
				err = errLinkLost
			}
			n.dropLink(l, err)
			return
		}
		id := down.GetReply().GetRequestId()
		if down.GetPong() != nil {
			id = down.GetPong().GetRequestId()
		}
		l.mu.Lock()
		ch := l.pending[id]
		delete(l.pending, id)
		l.mu.Unlock()
		if ch != nil {
			ch <- down
		}
	}
}

// dropLink ends l: its requests in flight get why, and the next request to
// its peer opens a new link.
func (n *Node) dropLink(l *link, why error) {
	n.links.mu.Lock()
	if n.links.byAddr[l.key] == l {
		delete(n.links.byAddr, l.key)
	}
	n.links.mu.Unlock()
	l.mu.Lock()
	if l.err == nil {
		l.err = why
		for id, ch := range l.pending {
			delete(l.pending, id)
			close(ch)
		}
		close(l.done)
	}
	cancel, conn := l.cancel, l.conn // nil while it opens (openLink closes them)
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		_ = conn.Close()
	}
}

// membersChanged ends the links to peers that were members and are not
// any more, unless they left gracefully (they answer what they got, then
// close the link themselves), and forgets which departed peers were of an
// earlier version (one may come back upgraded at the same address). A link
// to a peer that was never a member (a probe's, to a peer not up yet or
// named otherwise in cluster.peers) is left alone.
func (n *Node) membersChanged(now map[string]bool) {
	n.links.mu.Lock()
	var drop []*link
	for key, l := range n.links.byAddr {
		if n.links.members[key.addr] && !now[key.addr] && !n.prov.departed(key.addr) {
			drop = append(drop, l)
		}
	}
	for addr := range n.links.legacy {
		if !now[addr] {
			delete(n.links.legacy, addr)
		}
	}
	n.links.members = now
	n.links.mu.Unlock()
	for _, l := range drop {
		n.dropLink(l, errLinkLost)
	}
}

// closeLinks ends every link; none opens after.
func (n *Node) closeLinks() {
	n.links.mu.Lock()
	n.links.closed = true
	var drop []*link
	for _, l := range n.links.byAddr {
		drop = append(drop, l)
	}
	n.links.mu.Unlock()
	for _, l := range drop {
		n.dropLink(l, errLinkLost)
	}
}

// send writes m, whose id is id, on l, by deadline; the returned channel
// gets its answer, or is closed when the link ends first (l.err says why).
// errNotSent: nothing was written. A write whose deadline passed, or that
// waits for its turn past it, gives up; one that cannot finish by deadline
// plus grace (the peer stopped reading: paused, or cut off) ends the link,
// which fails the write (gRPC queues a message whole or not at all) and
// answers the requests in flight on it "outcome unknown". grace keeps a
// write that starts just before its deadline from ending a healthy link.
func (l *link) send(m *clusterpb.LinkUp, id uint64, deadline time.Time, grace time.Duration) (chan *clusterpb.LinkDown, error) {
	if !time.Now().Before(deadline) {
		return nil, errNotSent
	}
	ch := make(chan *clusterpb.LinkDown, 1)
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return nil, errNotSent
	}
	l.pending[id] = ch
	l.mu.Unlock()
	select {
	case l.wsem <- struct{}{}:
	default:
		t := time.NewTimer(time.Until(deadline))
		select {
		case l.wsem <- struct{}{}:
			t.Stop()
		case <-t.C:
			l.forget(id)
			return nil, errNotSent
		}
	}
	stuck := time.AfterFunc(time.Until(deadline)+grace, func() { l.drop(errLinkLost) })
	err := l.stream.SendMsg(m)
	stuck.Stop()
	<-l.wsem
	if err != nil {
		// A write that fails queued nothing, and the stream has ended: its
		// reader learns why (an earlier version's Unimplemented, say) and
		// ends the link; l.err then says why.
		l.forget(id)
		t := time.NewTimer(max(time.Until(deadline), 0) + grace)
		select {
		case <-l.done:
		case <-t.C:
			l.drop(errLinkLost)
		}
		t.Stop()
		return nil, errNotSent
	}
	return ch, nil
}

// forget drops request id's wait (its asker gave up).
func (l *link) forget(id uint64) {
	l.mu.Lock()
	delete(l.pending, id)
	l.mu.Unlock()
}

// linkErr is why l ended.
func (l *link) linkErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// forwardOn sends m on the link to home and waits for its reply until
// deadline, or until home left this node's topology without a graceful
// stop (as await does for the grain's path). Errors: errNotSent and
// errUnsupported (nothing reached the home); errLinkLost (the link ended,
// the deadline passed or the home left: it may have been served).
func (n *Node) forwardOn(l *link, m *clusterpb.Forward, serveBy, deadline time.Time) (*clusterpb.Reply, error) {
	// What is left of the request's time when it is sent (the wait for the
	// link above may have taken some).
	m.TimeoutNanos = int64(time.Until(serveBy))
	ch, err := l.send(&clusterpb.LinkUp{Msg: &clusterpb.LinkUp_Forward{Forward: m}}, m.GetRequestId(), serveBy, replyMargin)
	if err != nil {
		if errors.Is(l.linkErr(), errUnsupported) {
			return nil, errUnsupported
		}
		return nil, err
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	tick := time.NewTicker(n.cfg.ProbeInterval / 2)
	defer tick.Stop()
	for {
		select {
		case down, ok := <-ch:
			if !ok {
				return nil, l.linkErr()
			}
			if down.GetReply() == nil {
				// Not the answer of a Forward: the peer is broken.
				return nil, errLinkLost
			}
			return down.GetReply(), nil
		case <-tick.C:
			if !n.member(l.addr) && !n.prov.departed(l.addr) {
				l.forget(m.GetRequestId())
				return nil, errLinkLost
			}
		case <-t.C:
			l.forget(m.GetRequestId())
			return nil, errLinkLost
		}
	}
}

// serveStream serves a peer's link (the cluster port's unknown-service
// handler: any other unknown method is answered Unimplemented). Each
// forwarded request is served on a worker, each Ping answered at once; the
// stream ends when the peer closes it or the port stops, once the requests
// read from it have answered (or given up writing their reply).
func (n *Node) serveStream(_ any, ss grpc.ServerStream) error {
	if m, _ := grpc.MethodFromServerStream(ss); m != forwardMethod {
		return status.Error(codes.Unimplemented, "not served")
	}
	var (
		mu      sync.Mutex // serializes the writes
		running sync.WaitGroup
	)
	write := func(down *clusterpb.LinkDown) {
		mu.Lock()
		defer mu.Unlock()
		// An answer that cannot be written (the stream ended) is lost with
		// its stream: the forwarding node answers "outcome unknown", the
		// prober counts a miss.
		_ = ss.SendMsg(down)
	}
	defer running.Wait()
	for {
		up := new(clusterpb.LinkUp)
		if err := ss.RecvMsg(up); err != nil {
			return nil
		}
		if ping := up.GetPing(); ping != nil {
			if a, ok := n.prov.(pingAnswerer); ok {
				if pong := a.pong(ping); pong != nil {
					pong.RequestId = ping.GetRequestId()
					write(&clusterpb.LinkDown{Msg: &clusterpb.LinkDown_Pong{Pong: pong}})
				}
			}
			continue
		}
		m := up.GetForward()
		if m == nil {
			continue
		}
		running.Add(1)
		n.workers.run(func() {
			defer running.Done()
			n.serveLinked(m, func(rep *clusterpb.Reply) {
				rep.RequestId = m.GetRequestId()
				write(&clusterpb.LinkDown{Msg: &clusterpb.LinkDown_Reply{Reply: rep}})
			})
		})
	}
}

// pingAnswerer is a membership that answers probes (the static provider).
type pingAnswerer interface {
	// pong is the answer to ping, nil for none.
	pong(ping *clusterpb.Ping) *clusterpb.Pong
}

// probeOn sends ping to peer on its probe link and waits for its Pong
// until deadline. handled false: the peer serves no links (an earlier
// version) or this node is stopping, and the probe goes through
// protoactor; a nil Pong with handled true is a probe unanswered (or a
// link that could not be opened: the peer is not up).
func (n *Node) probeOn(peer string, ping *clusterpb.Ping, deadline time.Time) (pong *clusterpb.Pong, handled bool) {
	for try := 0; ; try++ {
		l, err := n.linkTo(peer, true)
		if err != nil {
			return nil, true
		}
		if l == nil {
			return nil, false
		}
		id := n.requestIDs.Add(1)
		ping.RequestId = id
		// No grace: the link carries probes only, one per round.
		ch, err := l.send(&clusterpb.LinkUp{Msg: &clusterpb.LinkUp_Ping{Ping: ping}}, id, deadline, 0)
		if err != nil {
			// The link ended before the Ping was written: find out why
			// (an earlier version's Unimplemented ends it too), and try a
			// new link with the time left.
			t := time.NewTimer(time.Until(deadline))
			select {
			case <-l.done:
				t.Stop()
			case <-t.C:
				return nil, true
			}
			if errors.Is(l.linkErr(), errUnsupported) {
				return nil, false
			}
			if try > 0 {
				return nil, true
			}
			continue
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case down, ok := <-ch:
			t.Stop()
			if !ok {
				return nil, !errors.Is(l.linkErr(), errUnsupported)
			}
			return down.GetPong(), true
		case <-t.C:
			l.forget(id)
			return nil, true
		}
	}
}

// serveLinked serves a request that came on a forwarding stream, while its
// account's grain is live here (see localGrain); otherwise it answers
// no_grain, having done nothing.
func (n *Node) serveLinked(m *clusterpb.Forward, reply func(*clusterpb.Reply)) {
	v, ok := n.locals.Load(storage.AccountID(m.GetAccount()))
	if !ok {
		reply(&clusterpb.Reply{NoGrain: true})
		return
	}
	l := v.(*localGrain)
	if !l.enter(time.Now()) {
		reply(&clusterpb.Reply{NoGrain: true})
		return
	}
	defer l.exit()
	n.servedLinked.Add(1)
	n.serveForward(m, reply)
}
