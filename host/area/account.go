package area

import (
	"bytes"
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/actors"
	hostmetrics "github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// For returns the same replies logging to e.Log, whose routes sign the
// player in with e.Login and apply their changes with e.Sys (Route's
// Account and Change): an area declares its Replies once, beside its
// table, and binds them in Start.
func (rs *Replies) For(e Env) *Replies {
	c := rs.WithLog(e.Log)
	c.env = &e
	return c
}

// cookieForm is the cookie every signed-in route reads.
type cookieForm struct {
	Cookie string `form:"cookie,required" doc:"session cookie from the login"`
}

// signIn reads the request's cookie and returns its live session: a
// missing cookie is a bad request, a dead one login.ErrInvalidCookie
// (CauseBadCookie).
func (rs *Replies) signIn(r *wire.Request) (*storage.Session, error) {
	var c cookieForm
	if err := r.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return rs.env.Login.Authenticate(c.Cookie)
}

// withCookie lists the cookie first among doc's fields. It panics when
// the route's request declares a cookie of its own (the host reads it).
func withCookie(area, path string, doc server.Doc) server.Doc {
	fields := server.Doc{Form: doc.Form, Fields: doc.Fields}.AllFields()
	for _, f := range fields {
		if f.Name == "cookie" {
			panic(fmt.Sprintf("area: %s: route %s is a signed-in player's: the host reads its cookie, its request declares none", area, path))
		}
	}
	doc.Form, doc.Fields = nil, append(server.Doc{Form: cookieForm{}}.AllFields(), fields...)
	return doc
}

// logicOf returns rt's logic as NewRoute calls it, and whether it is a
// signed-in player's (Account, Change). It panics unless exactly one of
// Serve, Account and Change is set, or when a signed-in route's Replies
// lack For: programming errors any test of the area catches.
func logicOf[Req, Rep any](rs *Replies, rt Route[Req, Rep]) (func(context.Context, *storage.Session, Req) (Rep, error), bool) {
	n := 0
	for _, set := range []bool{rt.Serve != nil, rt.Account != nil, rt.Change != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		panic(fmt.Sprintf("area: %s: route %s%s needs one of Serve, Account and Change", rs.area, rt.Path, rt.Func))
	case rt.Serve != nil:
		return func(ctx context.Context, _ *storage.Session, req Req) (Rep, error) { return rt.Serve(ctx, req) }, false
	case rs.env == nil || rs.env.Login == nil || (rt.Change != nil && rs.env.Sys == nil):
		panic(fmt.Sprintf("area: %s: route %s%s is a signed-in player's: its Replies need For(env)", rs.area, rt.Path, rt.Func))
	case rt.Account != nil:
		return rt.Account, true
	}
	// A failed change's Rep is not kept (Fail gets the zero Rep): the
	// change may still be running in the actor when Apply returns on a
	// deadline, and it wrote nothing anyway.
	sys := rs.env.Sys
	return func(ctx context.Context, s *storage.Session, req Req) (Rep, error) {
		return actors.Apply(ctx, sys, s.AccountID, func(tx *actors.Tx) (Rep, error) { return rt.Change(ctx, tx, req) })
	}, true
}

// Decide asks plugin for decision d on facts, inside the change tx of an
// account, with the account's state st of the area (sdk.State: decoded
// and checked before the area sees it). The plugin's next state must be
// one st accepts (else an error wrapping sdk.ErrInvalidDecision); it is
// put in tx, so it commits with the change or, when the change returns
// an error, not at all. When ctx has ended by the time the plugin
// answered, Decide refuses (sdk.ErrUnavailable): a commit then would hide
// a write behind an error reply. Its errors are answered from the
// table's shared causes (CausePluginDown).
//
//	d, next, err := area.Decide(ctx, tx, h.Plugin, coinflipapi.Flip, coinflipapi.Schema,
//		coinflipapi.FlipFacts{AccountID: uint32(tx.ID()), Stake: req.Stake})
func Decide[F, D, S any](ctx context.Context, tx *actors.Tx, plugin sdk.Caller, d *sdk.Decision[F, D], st *sdk.State[S], facts F) (D, S, error) {
	var zd D
	var zs S
	area := string(st.Area())
	state, err := tx.PluginState(area)
	if err != nil {
		return zd, zs, err
	}
	out, err := d.Decide(ctx, plugin, sdk.Call[F]{Facts: facts, State: state})
	if err != nil {
		return zd, zs, err
	}
	next, err := st.Decode(out.State)
	if err != nil {
		return zd, zs, fmt.Errorf("%s: %w", d.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		return zd, zs, fmt.Errorf("%w: %w", sdk.ErrUnavailable, err)
	}
	if !bytes.Equal(out.State, state) {
		tx.SetPluginState(area, out.State)
	}
	return out.Decision, next, nil
}

// CounterVec registers the area's counter honmaster_<name> on e.Metrics
// (reusing the one an earlier start registered), with one label whose
// series for values start at zero, so that a dashboard sees every
// outcome before the first one happens:
//
//	flips, err := e.CounterVec("coinflip_flips_total", "Coin flips decided, by outcome: won or lost.", "outcome", "won", "lost")
func (e Env) CounterVec(name, help, label string, values ...string) (*prometheus.CounterVec, error) {
	c, err := hostmetrics.Register(e.Metrics, prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: hostmetrics.Namespace,
		Name: name, Help: help}, []string{label}))
	if err != nil {
		return nil, err
	}
	for _, v := range values {
		c.WithLabelValues(v)
	}
	return c, nil
}
