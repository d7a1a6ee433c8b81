package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/internal/clusterpb"
	"github.com/honmaster/masterserver/host/logflood"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// ServeLocal serves a request on this node, as if it had arrived here
// (server.Server.ServeLocal).
type ServeLocal func(ctx context.Context, r *wire.Request) server.Response

// Attach gives the node what it serves forwarded requests with. Call it
// before the server serves.
func (n *Node) Attach(sys *actors.System, serve ServeLocal) {
	if a, ok := n.prov.(interface{ attach(*storage.DB) }); ok {
		a.attach(sys.DB())
	}
	n.sys.Store(sys)
	n.served.Store(&serve)
}

// Errors of Forward. They wrap the actors errors the areas already word
// for players, so every area's reply says what happened.
var (
	// ErrNoAnswer: the home node got the request but did not answer in
	// time (it died or was paused): it may or may not have been served.
	// It is applied by the request's deadline at the latest, or never (see
	// Forward).
	ErrNoAnswer = fmt.Errorf("%w: the account's node did not answer in time", actors.ErrTimeout)
	// ErrReplyTooLarge: the account's node served the request, but its
	// reply was larger than the cluster port carries: its outcome is
	// unknown to the player, as for ErrNoAnswer.
	ErrReplyTooLarge = fmt.Errorf("%w: the account's node served the request, but its reply was too large to pass between the nodes", actors.ErrTimeout)
)

// retryPause is the wait between two tries to reach an account's grain
// while the membership changes.
const retryPause = 100 * time.Millisecond

// Forward implements server.Forwarder: a request that names an account is
// sent to that account's grain, wherever the cluster places it (here
// included, so that the grain's start always precedes the account's use on
// its node), and its reply comes back. Once the grain is found, a request
// for another node goes on this node's link to it (stream.go), which
// serves it while the grain is live there; through the grain otherwise.
// The account is the one the route's hook names (account,
// server.Route.Account), else the host's rule (accountOf). Requests that
// name no account are served here (handled false).
//
// When the account's node cannot be reached, because it is suspect (it
// missed its last probe, or left etcd's topology) or did not give the
// grain's address within reachWait, the request
// was sent nowhere, and it is served here (handled false): the handler's
// change runs in a transient activation whose owner epoch fences the
// unreachable node's. So a node's death costs its players the requests it
// had in flight (answered as of unknown outcome), not the seconds until
// the membership drops it. A request the home node got but did not answer
// is never served again elsewhere (it may have been served):
// ErrNoAnswer. The forwarding node waits for the reply until the request's
// deadline, or until the home left its topology (it missed enough probes
// to be dropped: a single missed probe of a busy node is no reason to give
// up); it then cancels the request at the home and fences the home before
// it answers (noAnswer): a request answered as of unknown outcome was
// applied before the answer or never. Should the fence fail, the home's
// deadline for it is no later than the forwarding node's (the remaining
// time travels with the request), its change never starts after the
// cancellation or that deadline, and it never runs again after a fence
// (actors.ForwardedContext): it is applied before that deadline (server's
// ask_timeout + 1 s after it arrived; a commit that began by then ends
// within actors' commit grace) or never.
//
// A request that reached its account's home while the grain is live here
// is served here directly, as the grain would serve it (serveAtHome).
//
// A node that stopped serving (Config.SelfFence) answers every request
// ErrNotServing, having done nothing.
func (n *Node) Forward(ctx context.Context, r *wire.Request, account server.AccountOf) (server.Response, bool, error) {
	if err := n.prov.serving(); err != nil {
		return server.Response{}, true, err
	}
	sys := n.sys.Load()
	if sys == nil {
		return server.Response{}, false, nil
	}
	id, ok := accountOf(sys, r, account)
	if !ok {
		return server.Response{}, false, nil
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(n.cfg.RequestTimeout)
	}
	// The home node must finish before the asker stops waiting: it gets the
	// deadline less a margin for the reply's way back.
	serveBy := deadline.Add(-replyMargin)
	reachBy := time.Now().Add(n.reachWait())
	if serveBy.Before(reachBy) {
		reachBy = serveBy
	}
	ci := identityOf(id)
	root := n.as.Root
	var msg *clusterpb.Forward
	var msgSize int
	for {
		if time.Now().After(reachBy) {
			n.servedLocally.Add(1)
			return server.Response{}, false, nil
		}
		home := n.rdv.Load().GetByClusterIdentity(ci)
		if home == "" || (home != n.self && n.prov.suspect(home)) {
			n.servedLocally.Add(1)
			return server.Response{}, false, nil
		}
		if home == n.self {
			if rep, ok := n.serveAtHome(ctx, id, r, serveBy); ok {
				return rep, true, nil
			}
		}
		pid := n.grainPID(ci, home, reachBy)
		if pid == nil {
			pause(ctx, retryPause)
			continue
		}
		if msg == nil {
			msg = toForward(r, serveBy, n.cfg.Node)
			msg.Account = uint32(id)
			msgSize = proto.Size(msg)
		}
		msg.RequestId = n.requestIDs.Add(1)
		msg.TimeoutNanos = timeLeft(serveBy)
		n.forwarded.Add(1)
		if pid.Address != n.self {
			// On the link to the home, unless the home cannot serve it
			// there (see stream.go).
			if msgSize > n.cfg.maxMessage()-replyRoom {
				// The home's port would refuse it, ending the link with
				// every request in flight on it. The HTTP server's body
				// limit keeps requests under this unless the nodes'
				// body limits differ. Nothing was sent: the area answers
				// it as any request too large.
				n.log.Error("a request is larger than the cluster port carries: the player is told it is too large",
					"bytes", msgSize, "limit", n.cfg.maxMessage()-replyRoom, "path", logflood.Clip(r.Path))
				return server.Response{}, true, fmt.Errorf("%w (larger than the cluster port carries)", wire.ErrBodyTooLarge)
			}
			l, err := n.linkTo(pid.Address, false)
			if err != nil {
				// Sent nowhere.
				pause(ctx, retryPause)
				continue
			}
			if l != nil {
				rep, err := n.forwardOn(l, msg, serveBy, deadline)
				switch {
				case errors.Is(err, errNotSent):
					// The link ended, or stayed busy until the request's
					// time ran out: nothing was sent.
					pause(ctx, retryPause)
					continue
				case err == nil && rep.GetRefused() != "":
					n.c.PidCache.RemoveByValue(ci.Identity, ci.Kind, pid)
					pause(ctx, retryPause)
					continue
				case err == nil && !rep.GetNoGrain():
					return replied(rep)
				case err != nil && !errors.Is(err, errUnsupported):
					n.c.PidCache.RemoveByValue(ci.Identity, ci.Kind, pid)
					return n.noAnswer(sys, id, pid, msg)
				}
				// no_grain or an earlier version's peer: nothing was
				// done; through the grain, under a new id.
				msg.RequestId = n.requestIDs.Add(1)
				msg.TimeoutNanos = timeLeft(serveBy)
			}
		}
		res, err := n.await(root.RequestFuture(pid, msg, time.Until(deadline)), pid.Address)
		if rep, ok := res.(*clusterpb.Reply); ok && err == nil {
			if rep.GetRefused() != "" {
				n.c.PidCache.RemoveByValue(ci.Identity, ci.Kind, pid)
				pause(ctx, retryPause)
				continue
			}
			return replied(rep)
		}
		n.c.PidCache.RemoveByValue(ci.Identity, ci.Kind, pid)
		if errors.Is(err, actor.ErrDeadLetter) {
			// The grain had stopped (passivated, or moved): nothing was
			// delivered; activate it again.
			continue
		}
		return n.noAnswer(sys, id, pid, msg)
	}
}

// timeLeft is a forwarded request's TimeoutNanos: the time left until
// serveBy, or -1 when none is (the home refuses it, having done nothing,
// whatever its clock reads of the deadline; 0 would read as sent by a node
// of an earlier version).
func timeLeft(serveBy time.Time) int64 {
	if t := time.Until(serveBy); t > 0 {
		return int64(t)
	}
	return -1
}

// fenceTimeout bounds how long the answer to a request whose home gave no
// answer waits for the fence (noAnswer).
const fenceTimeout = 2 * time.Second

// noAnswer answers request msg of account id, sent to grain pid, whose
// home did not answer: its outcome is unknown (ErrNoAnswer), and final.
// The home is told to drop the request (Cancel, best effort: a change it
// began goes on to its commit), then fenced: a transient activation here
// takes a new owner epoch for the account, so that a commit the home had
// not made by then is refused by the database, whatever the clocks say,
// and is never run again (actors.ForwardedContext). Only then is the
// player answered: what the request did, it did before the answer. When
// the fence fails (the database unreachable; logged), the bound is the
// home's deadline for the request (see Forward).
func (n *Node) noAnswer(sys *actors.System, id storage.AccountID, pid *actor.PID, msg *clusterpb.Forward) (server.Response, bool, error) {
	n.forwardFailed.Add(1)
	n.as.Root.Send(pid, &clusterpb.Cancel{RequestId: msg.RequestId, FromNode: n.cfg.Node})
	ctx, cancel := context.WithTimeout(context.Background(), fenceTimeout)
	defer cancel()
	// A live activation here may be older than the home's: the fence
	// must be a new one.
	sys.Reactivate(id)
	_, err := sys.Apply(ctx, id, actors.ChangeFunc[struct{}](func(*actors.Tx) (struct{}, error) { return struct{}{}, nil }))
	if err != nil && !errors.Is(err, actors.ErrNoAccount) {
		n.log.Warn("a request whose home did not answer could not be fenced: a change the home began may still commit",
			"account", id, "err", err)
	}
	return server.Response{}, true, ErrNoAnswer
}

// await waits for a forwarded request's reply, but no longer than its home
// node stays a member: once it left this node's topology (it died or was
// paused long enough to be dropped), the request's outcome is unknown, and
// the player learns it then rather than at the request's deadline. A home
// that merely missed a probe (a busy machine) is waited for, and so is one
// that left gracefully (it answers what it got before it stops, see Stop).
func (n *Node) await(f *actor.Future, home string) (any, error) {
	if home == n.self {
		// This node never suspects itself: no watch, no goroutine.
		return f.Result()
	}
	type result struct {
		res any
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := f.Result()
		done <- result{res, err}
	}()
	t := time.NewTicker(n.cfg.ProbeInterval / 2)
	defer t.Stop()
	for {
		select {
		case r := <-done:
			return r.res, r.err
		case <-t.C:
			if !n.member(home) && !n.prov.departed(home) {
				return nil, actor.ErrTimeout
			}
		}
	}
}

// member reports whether addr is a member in this node's topology.
func (n *Node) member(addr string) bool {
	return slices.ContainsFunc(n.Members(), func(m Member) bool { return m.Address == addr })
}

// reachWait bounds the search for an account's grain before the request is
// served here instead.
func (n *Node) reachWait() time.Duration { return 2 * n.cfg.ProbeTimeout }

// replyMargin is the part of a request's time kept for its reply's way back.
const replyMargin = 500 * time.Millisecond

func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// grainPID returns the PID of the grain of ci, activating it on its home
// node (disthash's placement actor there), or nil when the home is unknown
// or did not answer. It asks the placement actor itself, as disthash's
// lookup does, but with a timeout bounded by the request's: a dead home
// costs a request at most until membership drops it.
func (n *Node) grainPID(ci *cluster.ClusterIdentity, home string, by time.Time) *actor.PID {
	if pid, ok := n.c.PidCache.Get(ci.Identity, ci.Kind); ok && pid.Address == home {
		return pid
	}
	wait := min(time.Until(by), n.cfg.ProbeTimeout)
	if wait <= 0 {
		return nil
	}
	res, err := n.as.Root.RequestFuture(actor.NewPID(home, disthash.PartitionActivatorActorName),
		&cluster.ActivationRequest{ClusterIdentity: ci}, wait).Result()
	rep, ok := res.(*cluster.ActivationResponse)
	if err != nil || !ok || rep.GetPid() == nil {
		return nil
	}
	n.c.PidCache.Set(ci.Identity, ci.Kind, rep.Pid)
	return rep.Pid
}

// accountOf names the account a request is about: the one its route's
// hook names (route, when not nil), else the login's for the login
// functions (pre_auth and srpAuth, before any session exists, and
// switch_auth, whose new session is the login's), else the session
// cookie's. false: the request names none (or an unknown one) and is
// served where it arrived.
func accountOf(sys *actors.System, r *wire.Request, route server.AccountOf) (storage.AccountID, bool) {
	if route != nil {
		if id, ok := route(r); ok {
			return id, true
		}
	}
	if r.Path == server.PathClientRequester {
		fn := r.Query.Get("f")
		if fn == "" {
			fn = r.Form.Get("f")
		}
		switch fn {
		case server.FuncPreAuth, server.FuncSRPAuth, server.FuncSwitchAuth:
			// As the handlers read it (wire.Request.Decode): the form's,
			// else the query's. Read from the form only, a login sent in
			// the query named no account, and the request was served
			// where it arrived, with that node's own budgets of the
			// account (a switch's, limits.toggles_per_account).
			login := r.Value("login")
			if login == "" {
				return 0, false
			}
			id, err := sys.DB().LoginID(login)
			return id, err == nil
		}
	}
	cookie := r.Value("cookie") // as the handlers read it
	if cookie == "" {
		return 0, false
	}
	id, err := sys.SessionAccount(cookie)
	return id, err == nil
}

// serveForward serves a forwarded request here (on the grain's node) and
// gives reply its answer. A node that is leaving (Stop) refuses it, having
// done nothing, so that the forwarding node serves it elsewhere; Stop
// waits for the requests it already serves, their replies sent.
//
// Its deadline is the earlier of the forwarding node's (deadline_unix_nano)
// and its arrival here plus the time it had left when sent, so that
// neither a clock ahead of the forwarding node's nor a pause here
// lengthens it; a Cancel from the forwarding node ends it (see Forward).
// A node that stopped serving (Config.SelfFence) refuses it.
func (n *Node) serveForward(m *clusterpb.Forward, reply func(*clusterpb.Reply)) {
	if !n.inflight.enter() {
		reply(&clusterpb.Reply{Refused: "the node is leaving the cluster"})
		return
	}
	defer n.inflight.exit()
	serve := n.served.Load()
	if serve == nil {
		reply(&clusterpb.Reply{Refused: "the node is starting"})
		return
	}
	if err := n.prov.serving(); err != nil {
		reply(&clusterpb.Reply{Refused: err.Error()})
		return
	}
	by := time.Unix(0, m.GetDeadlineUnixNano())
	switch t := m.GetTimeoutNanos(); {
	case t < 0: // sent with no time left (see timeLeft)
		reply(&clusterpb.Reply{Refused: "the request's deadline passed before it was served"})
		return
	case t > 0: // (0: a node of an earlier version, which sends none)
		if local := time.Now().Add(time.Duration(t)); local.Before(by) {
			by = local
		}
	}
	if !time.Now().Before(by) {
		reply(&clusterpb.Reply{Refused: "the request's deadline passed before it was served"})
		return
	}
	n.servedHere.Add(1)
	ctx, cancel := context.WithDeadline(actors.ForwardedContext(context.Background()), by)
	defer cancel()
	key := forwardKey{m.GetFromNode(), m.GetRequestId()}
	if !n.cancels.add(key, cancel) {
		reply(&clusterpb.Reply{Refused: "the forwarding node gave up on the request"})
		return
	}
	defer n.cancels.remove(key)
	rep := toReply((*serve)(ctx, fromForward(m)))
	if size, most := proto.Size(rep), n.cfg.maxMessage()-replyRoom; size > most {
		// The forwarding node's port would refuse it, closing the
		// connection with every request in flight on it.
		// The request was served: the player is told its outcome is
		// unknown (replied), not that it failed.
		n.log.Error("a forwarded request's reply is larger than the cluster port carries: the player is told its outcome is unknown",
			"bytes", size, "limit", most, "path", logflood.Clip(m.GetPath()))
		rep = &clusterpb.Reply{OutcomeUnknown: true}
	}
	reply(rep)
}

// replyRoom is the part of maxMessage kept for protoactor's envelope
// around a reply.
const replyRoom = 64 << 10

// forwardKey names a forwarded request: its forwarding node and that
// node's id of it.
type forwardKey struct {
	from string
	id   uint64
}

// cancels holds the cancel functions of the forwarded requests being
// served here, and the cancellations that arrived before their request
// (a Cancel may overtake its Forward: they come from different senders).
type cancels struct {
	mu      sync.Mutex
	running map[forwardKey]context.CancelFunc
	early   map[forwardKey]time.Time // cancelled before arrival, until when kept
}

// add registers a request's cancel function; false when it was cancelled
// already.
func (c *cancels) add(k forwardKey, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.early[k]; ok {
		// Refused however late it comes: its forwarding node answered it
		// as of unknown outcome, and a request served here after that, in
		// a fresh activation its fence does not reach, would make that
		// answer untrue. (Request ids start at random at every node
		// start, so a restarted node's requests do not meet its earlier
		// ones' entries.)
		delete(c.early, k)
		return false
	}
	if c.running == nil {
		c.running = map[forwardKey]context.CancelFunc{}
	}
	c.running[k] = cancel
	return true
}

func (c *cancels) remove(k forwardKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.running, k)
}

// cancel ends request k: at once when it runs, else when it arrives
// (an entry kept at least keep: one of a request that finished before its
// cancellation, the usual case, goes when a later cancellation finds it
// past its time).
func (c *cancels) cancel(k forwardKey, keep time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.running[k]; ok {
		f()
		return
	}
	now := time.Now()
	for ek, until := range c.early {
		if now.After(until) {
			delete(c.early, ek)
		}
	}
	if c.early == nil {
		c.early = map[forwardKey]time.Time{}
	}
	c.early[k] = now.Add(keep)
}

// inflight counts the forwarded requests a node serves, and refuses new
// ones once it is leaving.
type inflight struct {
	mu      sync.Mutex
	leaving bool
	n       int
	idle    chan struct{} // made by leave while requests run; closed when the last ends
}

// enter admits one forwarded request (false: the node is leaving).
func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leaving {
		return false
	}
	f.n++
	return true
}

func (f *inflight) exit() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// leave refuses every later request and waits until those running have
// answered, or for at most wait (their deadlines came from another node).
func (f *inflight) leave(wait time.Duration) {
	f.mu.Lock()
	f.leaving = true
	if f.n == 0 {
		f.mu.Unlock()
		return
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

func toFields(v wire.Values) []*clusterpb.Field {
	out := make([]*clusterpb.Field, 0, len(v))
	for k, vs := range v {
		out = append(out, &clusterpb.Field{Key: k, Values: vs})
	}
	return out
}

func fromFields(fs []*clusterpb.Field) wire.Values {
	v := make(wire.Values, len(fs))
	for _, f := range fs {
		v[f.GetKey()] = f.GetValues()
	}
	return v
}

func toForward(r *wire.Request, by time.Time, from string) *clusterpb.Forward {
	m := &clusterpb.Forward{Method: r.Method, Path: r.Path, Query: toFields(r.Query), Form: toFields(r.Form),
		RemoteIp: r.RemoteIP, UserAgent: r.UserAgent, ContentType: r.ContentType,
		DeadlineUnixNano: by.UnixNano(), FromNode: from}
	for name, f := range r.Files {
		m.Files = append(m.Files, &clusterpb.File{Part: name, Filename: f.Filename, ContentType: f.ContentType, Data: f.Data})
	}
	return m
}

func fromForward(m *clusterpb.Forward) *wire.Request {
	r := &wire.Request{Method: m.GetMethod(), Path: m.GetPath(), Query: fromFields(m.GetQuery()), Form: fromFields(m.GetForm()),
		RemoteIP: m.GetRemoteIp(), UserAgent: m.GetUserAgent(), ContentType: m.GetContentType()}
	if len(m.GetFiles()) > 0 {
		r.Files = make(map[string]wire.File, len(m.GetFiles()))
		for _, f := range m.GetFiles() {
			r.Files[f.GetPart()] = wire.File{Name: f.GetPart(), Filename: f.GetFilename(), ContentType: f.GetContentType(), Data: f.GetData()}
		}
	}
	return r
}

func toReply(r server.Response) *clusterpb.Reply {
	m := &clusterpb.Reply{Status: int32(r.Status), ContentType: r.ContentType, Body: r.Body}
	for _, h := range r.Header {
		m.Headers = append(m.Headers, &clusterpb.Header{Key: h[0], Value: h[1]})
	}
	return m
}

// replied is Forward's result for the home's reply rep: its response,
// or ErrReplyTooLarge when the home served the request but could not send
// its reply.
func replied(rep *clusterpb.Reply) (server.Response, bool, error) {
	if rep.GetOutcomeUnknown() {
		return server.Response{}, true, ErrReplyTooLarge
	}
	return fromReply(rep), true, nil
}

func fromReply(m *clusterpb.Reply) server.Response {
	r := server.Response{Status: int(m.GetStatus()), ContentType: m.GetContentType(), Body: m.GetBody()}
	for _, h := range m.GetHeaders() {
		r.Header = append(r.Header, [2]string{h.GetKey(), h.GetValue()})
	}
	return r
}

// parseIdentity is the account of a grain identity.
func parseIdentity(s string) (storage.AccountID, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	return storage.AccountID(n), err == nil
}
